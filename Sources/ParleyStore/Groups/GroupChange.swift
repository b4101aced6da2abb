import ParleyCore

/// One administrative change to a group, already checked for form by the server (lengths,
/// times in the future); ``GroupRules`` decides whether the actor may make it.
public enum GroupChange: Sendable, Hashable {
    /// Profile fields to set; nil fields stay as they are.
    case updateProfile(ProfileEdit)
    /// Invites users directly.
    case addMembers([UserID])
    /// Changes one member's role, mute or nickname.
    case updateMember(UserID, MemberEdit)
    /// Removes a member; removing oneself is leaving.
    case removeMember(UserID)
    /// Hands the group to another member.
    case transfer(to: UserID)
    /// Makes the group read-only for good.
    case dissolve
    /// A new invite link with this (random) code.
    case createLink(code: String, expiresAt: Int64?, maxUses: Int?)
    case revokeLink(code: String)
    /// Joins with a link, or files a join request when the group wants approval.
    case useLink(code: String, message: String)
    /// Approves or rejects the pending request of a user.
    case resolveRequest(of: UserID, approve: Bool)

    /// The profile fields a change sets.
    public struct ProfileEdit: Sendable, Hashable {
        public var name: String?
        public var description: String?
        /// The empty string removes the avatar.
        public var avatar: String?
        /// The empty string clears the announcement.
        public var announcement: String?
        public var joinPolicy: JoinPolicy?
        public var muteAll: Bool?

        public init(
            name: String? = nil, description: String? = nil, avatar: String? = nil, announcement: String? = nil,
            joinPolicy: JoinPolicy? = nil, muteAll: Bool? = nil
        ) {
            self.name = name
            self.description = description
            self.avatar = avatar
            self.announcement = announcement
            self.joinPolicy = joinPolicy
            self.muteAll = muteAll
        }
    }

    /// The member fields a change sets.
    public struct MemberEdit: Sendable, Hashable {
        public var role: MemberRole?
        /// 0 lifts a mute.
        public var mutedUntil: Int64?
        /// The empty string removes it.
        public var nickname: String?

        public init(role: MemberRole? = nil, mutedUntil: Int64? = nil, nickname: String? = nil) {
            self.role = role
            self.mutedUntil = mutedUntil
            self.nickname = nickname
        }
    }

    /// The users whose existence the rules need to know about.
    public var usersToCheck: [UserID] {
        if case .addMembers(let ids) = self { return ids }
        return []
    }
}
