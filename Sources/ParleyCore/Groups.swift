/// Who may bring people into a group (see docs/protocol.md, "Group administration").
public enum JoinPolicy: String, Codable, Sendable, Hashable, CaseIterable {
    /// Any member invites directly or shares a link; a link admits at once.
    case open
    /// The owner and admins invite directly; any member shares a link, and using it files a
    /// join request that the owner or an admin approves.
    case approval
    /// Only the owner and admins invite, directly or with a link; a link admits at once.
    case inviteOnly = "invite_only"
}

/// A group's announcement with who last edited it and when.
public struct GroupAnnouncement: Codable, Sendable, Hashable {
    public var text: String
    public var updatedBy: UserID
    public var updatedAt: Int64

    public init(text: String, updatedBy: UserID, updatedAt: Int64) {
        self.text = text
        self.updatedBy = updatedBy
        self.updatedAt = updatedAt
    }
}

/// Everything about a group besides its members and messages.
public struct GroupProfile: Codable, Sendable, Hashable {
    public var name: String
    public var description: String
    /// A file id; absent when the group has none.
    public var avatar: String?
    /// Absent until someone writes one; an empty text clears it.
    public var announcement: GroupAnnouncement?
    public var joinPolicy: JoinPolicy
    /// Only the owner and admins may send while this is on.
    public var muteAll: Bool
    /// The most members the group may have (the server's limit when it was created).
    public var memberLimit: Int
    public var ownerId: UserID
    /// When the owner dissolved the group; it is read-only from then on.
    public var dissolvedAt: Int64?
    /// Whether plain members may mention everyone (`mentionAll`); else only the owner and
    /// admins may. Absent in what older servers send: off.
    public var everyoneMayMentionAll: Bool

    public init(
        name: String, description: String = "", avatar: String? = nil, announcement: GroupAnnouncement? = nil,
        joinPolicy: JoinPolicy = .open, muteAll: Bool = false, memberLimit: Int = Limits.maxGroupMembers,
        ownerId: UserID, dissolvedAt: Int64? = nil, everyoneMayMentionAll: Bool = false
    ) {
        self.name = name
        self.description = description
        self.avatar = avatar
        self.announcement = announcement
        self.joinPolicy = joinPolicy
        self.muteAll = muteAll
        self.memberLimit = memberLimit
        self.ownerId = ownerId
        self.dissolvedAt = dissolvedAt
        self.everyoneMayMentionAll = everyoneMayMentionAll
    }

    private enum CodingKeys: String, CodingKey {
        case name, description, avatar, announcement, joinPolicy, muteAll, memberLimit, ownerId, dissolvedAt
        case everyoneMayMentionAll
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            description: try container.decode(String.self, forKey: .description),
            avatar: try container.decodeIfPresent(String.self, forKey: .avatar),
            announcement: try container.decodeIfPresent(GroupAnnouncement.self, forKey: .announcement),
            joinPolicy: try container.decode(JoinPolicy.self, forKey: .joinPolicy),
            muteAll: try container.decode(Bool.self, forKey: .muteAll),
            memberLimit: try container.decode(Int.self, forKey: .memberLimit),
            ownerId: try container.decode(UserID.self, forKey: .ownerId),
            dissolvedAt: try container.decodeIfPresent(Int64.self, forKey: .dissolvedAt),
            everyoneMayMentionAll: try container.decodeIfPresent(Bool.self, forKey: .everyoneMayMentionAll) ?? false)
    }
}

/// `PATCH /v1/conversations/{conversationId}`: the owner or an admin changes the group's
/// profile. Each field present is set; at least one must be. (The WebSocket `update_group`
/// frame carries the same body, naming the conversation in it.)
public struct UpdateGroupRequest: Codable, Sendable, Hashable, StrictDecodable {
    public var conversationId: ConversationID?
    public var name: String?
    public var description: String?
    /// A file id; the empty string removes the avatar.
    public var avatar: String?
    /// The empty string clears the announcement.
    public var announcement: String?
    public var joinPolicy: JoinPolicy?
    public var muteAll: Bool?
    public var everyoneMayMentionAll: Bool?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case conversationId, name, description, avatar, announcement, joinPolicy, muteAll, everyoneMayMentionAll
    }

    public init(
        conversationId: ConversationID? = nil, name: String? = nil, description: String? = nil,
        avatar: String? = nil, announcement: String? = nil, joinPolicy: JoinPolicy? = nil, muteAll: Bool? = nil,
        everyoneMayMentionAll: Bool? = nil
    ) {
        self.conversationId = conversationId
        self.name = name
        self.description = description
        self.avatar = avatar
        self.announcement = announcement
        self.joinPolicy = joinPolicy
        self.muteAll = muteAll
        self.everyoneMayMentionAll = everyoneMayMentionAll
    }
}

/// `PATCH /v1/conversations/{conversationId}/members/{userId}`: the owner changes a role, the
/// owner or an admin mutes, a member sets their own group nickname. Each field present is
/// set; at least one must be.
public struct UpdateMemberRequest: Codable, Sendable, Hashable, StrictDecodable {
    /// `admin` or `member` (ownership moves with the transfer endpoint).
    public var role: MemberRole?
    /// Milliseconds since the epoch, in the future: muted until then
    /// (``Limits/mutedUntilLifted`` means until lifted); 0 lifts a mute.
    public var mutedUntil: Int64?
    /// The member's own name in this group; the empty string removes it.
    public var nickname: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case role, mutedUntil, nickname
    }

    public init(role: MemberRole? = nil, mutedUntil: Int64? = nil, nickname: String? = nil) {
        self.role = role
        self.mutedUntil = mutedUntil
        self.nickname = nickname
    }
}

/// `POST /v1/conversations/{conversationId}/transfer`: the owner hands the group to a member
/// and becomes an admin.
public struct TransferGroupRequest: Codable, Sendable, Hashable, StrictDecodable {
    public var userId: UserID

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case userId
    }

    public init(userId: UserID) { self.userId = userId }
}

/// An invite link's code and limits.
public struct InviteLink: Codable, Sendable, Hashable {
    public var code: String
    public var conversationId: ConversationID
    public var createdBy: UserID
    public var createdAt: Int64
    /// Absent: never expires.
    public var expiresAt: Int64?
    /// Absent: unlimited.
    public var maxUses: Int?
    public var uses: Int
    public var revokedAt: Int64?

    public init(
        code: String, conversationId: ConversationID, createdBy: UserID, createdAt: Int64, expiresAt: Int64?,
        maxUses: Int?, uses: Int = 0, revokedAt: Int64? = nil
    ) {
        self.code = code
        self.conversationId = conversationId
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.maxUses = maxUses
        self.uses = uses
        self.revokedAt = revokedAt
    }
}

/// `POST /v1/conversations/{conversationId}/links`.
public struct CreateInviteLinkRequest: Codable, Sendable, Hashable, StrictDecodable {
    /// Seconds until the link stops working (1 to ``Limits/maxInviteLinkLifetimeSeconds``);
    /// absent: it never expires.
    public var expiresInSeconds: Int64?
    /// How many people may join with it (1 to ``Limits/maxInviteLinkUses``); absent: unlimited.
    public var maxUses: Int?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case expiresInSeconds, maxUses
    }

    public init(expiresInSeconds: Int64? = nil, maxUses: Int? = nil) {
        self.expiresInSeconds = expiresInSeconds
        self.maxUses = maxUses
    }
}

/// `GET /v1/conversations/{conversationId}/links`.
public struct InviteLinkList: Codable, Sendable, Hashable {
    public var links: [InviteLink]
    public init(links: [InviteLink]) { self.links = links }
}

/// What someone holding an invite code sees before joining.
public struct InvitePreview: Codable, Sendable, Hashable {
    public var conversationId: ConversationID
    public var name: String
    public var memberCount: Int
    public var joinPolicy: JoinPolicy

    public init(conversationId: ConversationID, name: String, memberCount: Int, joinPolicy: JoinPolicy) {
        self.conversationId = conversationId
        self.name = name
        self.memberCount = memberCount
        self.joinPolicy = joinPolicy
    }
}

/// `POST /v1/invites/{code}`: join with a link, or ask to when the group wants approval.
public struct UseInviteRequest: Codable, Sendable, Hashable, StrictDecodable {
    /// A note to the owner and admins (at most ``Limits/maxJoinRequestMessageLength`` characters).
    public var message: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case message
    }

    public init(message: String? = nil) { self.message = message }
}

/// The state of a join request.
public enum JoinRequestState: String, Codable, Sendable, Hashable {
    case pending, approved, rejected
}

/// Someone asking to join a group that wants approval. A user has at most one request per
/// group: asking again while it is pending merges with it, and asking after it was resolved
/// opens it again.
public struct JoinRequest: Codable, Sendable, Hashable {
    public var conversationId: ConversationID
    public var userId: UserID
    /// The code of the link used.
    public var inviteCode: String
    public var message: String
    public var state: JoinRequestState
    public var createdAt: Int64
    public var resolvedBy: UserID?
    public var resolvedAt: Int64?

    public init(
        conversationId: ConversationID, userId: UserID, inviteCode: String, message: String,
        state: JoinRequestState = .pending, createdAt: Int64, resolvedBy: UserID? = nil, resolvedAt: Int64? = nil
    ) {
        self.conversationId = conversationId
        self.userId = userId
        self.inviteCode = inviteCode
        self.message = message
        self.state = state
        self.createdAt = createdAt
        self.resolvedBy = resolvedBy
        self.resolvedAt = resolvedAt
    }
}

/// `GET /v1/conversations/{conversationId}/join-requests`: the pending ones, oldest first.
public struct JoinRequestList: Codable, Sendable, Hashable {
    public var requests: [JoinRequest]
    public init(requests: [JoinRequest]) { self.requests = requests }
}

/// `POST /v1/conversations/{conversationId}/join-requests/{userId}`: approve or reject.
public struct ResolveJoinRequest: Codable, Sendable, Hashable, StrictDecodable {
    public var approve: Bool

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case approve
    }

    public init(approve: Bool) { self.approve = approve }
}

/// The answer to using an invite: the group when it admitted the user, or the request it
/// filed when it wants approval.
public struct InviteOutcome: Codable, Sendable, Hashable {
    public var conversation: ConversationDetail?
    public var request: JoinRequest?

    public init(conversation: ConversationDetail? = nil, request: JoinRequest? = nil) {
        self.conversation = conversation
        self.request = request
    }
}
