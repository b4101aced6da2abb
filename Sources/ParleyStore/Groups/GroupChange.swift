import ParleyCore

/// One administrative change to a group, already checked for form by the server (lengths,
/// times in the future); ``GroupRules`` decides whether the actor may make it.
public enum GroupChange: Sendable, Hashable {
    /// Profile fields to set (validated: trimmed, within limits); nil fields stay as they
    /// are, an empty avatar or announcement removes it. `conversationId` is ignored.
    case updateProfile(UpdateGroupRequest)
    /// Invites users directly.
    case addMembers([UserID])
    /// Changes one member's role, mute (0 lifts it) or nickname (empty removes it), validated.
    case updateMember(UserID, UpdateMemberRequest)
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

    /// The users whose existence the rules need to know about.
    public var usersToCheck: [UserID] {
        if case .addMembers(let ids) = self { return ids }
        return []
    }
}
