/// Whether a conversation is between exactly two users or a named group.
public enum ConversationKind: String, Codable, Sendable, Hashable, CaseIterable {
    case direct
    case group
}

/// A member's role in a conversation.
public enum MemberRole: String, Codable, Sendable, Hashable {
    case owner
    case admin
    case member
}

/// A conversation as one member sees it: its position (max seq), their read watermark,
/// the unread count derived from both, and the last message.
public struct ConversationSummary: Codable, Hashable, Sendable {
    public var id: ConversationID
    public var kind: ConversationKind
    public var name: String?
    /// For a direct conversation, the other user.
    public var peerId: UserID?
    public var memberCount: Int
    public var maxSeq: Int64
    public var readSeq: Int64
    /// `maxSeq - readSeq`: sending a message moves the sender's own watermark.
    public var unreadCount: Int64
    /// The highest read watermark among the other members: the user's own messages up to
    /// it show as read.
    public var othersReadSeq: Int64
    /// The highest delivered watermark among the other members: the user's own messages up
    /// to it reached one of their devices.
    public var othersDeliveredSeq: Int64
    /// Unread messages that mention the user, or everyone ("[@me]"); drops as they are read.
    public var unreadMentions: Int
    public var lastMessage: Message?
    public var createdAt: Int64
    public var lastActivityAt: Int64
    /// A group's profile; absent for a direct conversation.
    public var group: GroupProfile?
    /// The viewer's own settings for it (pinned, muted, hidden, draft).
    public var settings: ConversationSettings

    public init(
        id: ConversationID, kind: ConversationKind, name: String?, peerId: UserID?, memberCount: Int, maxSeq: Int64,
        readSeq: Int64, othersReadSeq: Int64 = 0, othersDeliveredSeq: Int64 = 0, unreadMentions: Int = 0,
        lastMessage: Message?, createdAt: Int64, lastActivityAt: Int64,
        group: GroupProfile? = nil, settings: ConversationSettings = ConversationSettings()
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.peerId = peerId
        self.memberCount = memberCount
        self.maxSeq = maxSeq
        self.readSeq = readSeq
        self.unreadCount = max(0, maxSeq - readSeq)
        self.othersReadSeq = othersReadSeq
        self.othersDeliveredSeq = othersDeliveredSeq
        self.unreadMentions = unreadMentions
        self.lastMessage = lastMessage
        self.createdAt = createdAt
        self.lastActivityAt = lastActivityAt
        self.group = group
        self.settings = settings
    }
}

/// A member of a conversation with their role, read watermark, group nickname and mute.
public struct Member: Codable, Hashable, Sendable {
    public var userId: UserID
    public var role: MemberRole
    public var readSeq: Int64
    public var joinedAt: Int64
    /// Their name in this group; absent when they set none.
    public var nickname: String?
    /// Until when they may not send (ms since the epoch; ``Limits/mutedUntilLifted``: until
    /// lifted); absent when not muted. A mute in the past no longer applies.
    public var mutedUntil: Int64?

    public init(
        userId: UserID, role: MemberRole, readSeq: Int64, joinedAt: Int64, nickname: String? = nil,
        mutedUntil: Int64? = nil
    ) {
        self.userId = userId
        self.role = role
        self.readSeq = readSeq
        self.joinedAt = joinedAt
        self.nickname = nickname
        self.mutedUntil = mutedUntil
    }

    /// Whether a mute applies at `now`.
    public func isMuted(at now: Int64) -> Bool { (mutedUntil ?? 0) > now }
}

/// A conversation with its member list.
public struct ConversationDetail: Codable, Hashable, Sendable {
    public var conversation: ConversationSummary
    public var members: [Member]

    public init(conversation: ConversationSummary, members: [Member]) {
        self.conversation = conversation
        self.members = members
    }
}

/// A page of `GET /v1/conversations`, most recently active first; `nextCursor` is absent on
/// the last page.
public struct ConversationPage: Codable, Hashable, Sendable {
    public var conversations: [ConversationSummary]
    public var nextCursor: String?

    public init(conversations: [ConversationSummary], nextCursor: String?) {
        self.conversations = conversations
        self.nextCursor = nextCursor
    }
}

/// `POST /v1/conversations`: a group; the creator becomes its owner.
public struct CreateGroupRequest: Codable, Sendable, StrictDecodable {
    public var name: String
    public var memberIds: [UserID]

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case name, memberIds
    }

    public init(name: String, memberIds: [UserID]) {
        self.name = name
        self.memberIds = memberIds
    }
}

/// `POST /v1/conversations/direct`: the one direct conversation with a user, created if needed.
public struct OpenDirectRequest: Codable, Sendable, StrictDecodable {
    public var userId: UserID

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case userId
    }

    public init(userId: UserID) { self.userId = userId }
}

/// `POST /v1/conversations/{id}/members`.
public struct AddMembersRequest: Codable, Sendable, StrictDecodable {
    public var userIds: [UserID]

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case userIds
    }

    public init(userIds: [UserID]) { self.userIds = userIds }
}

/// The answer to `POST /v1/conversations/{id}/members`: whom the request made members, and
/// the seq of the `member.joined` notice that records it. The rest of the member list is not
/// repeated (a group may have thousands): a client holding the list adds these, as it would
/// from the notice, and one that does not reads it with `GET /v1/conversations/{id}`.
public struct MembersAdded: Codable, Hashable, Sendable {
    public var conversationId: ConversationID
    /// The members added, as they now stand; empty when every user named was a member already.
    public var members: [Member]
    /// The conversation seq of the `member.joined` notice; absent when nobody was added.
    public var noticeSeq: Int64?

    public init(conversationId: ConversationID, members: [Member], noticeSeq: Int64?) {
        self.conversationId = conversationId
        self.members = members
        self.noticeSeq = noticeSeq
    }
}

/// `POST /v1/conversations/{id}/read` and the WebSocket `read` frame: "I have read up to `seq`".
public struct ReadRequest: Codable, Sendable, StrictDecodable {
    public var conversationId: ConversationID?
    public var seq: Int64

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case conversationId, seq
    }

    public init(conversationId: ConversationID? = nil, seq: Int64) {
        self.conversationId = conversationId
        self.seq = seq
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        conversationId = try container.decodeIfPresent(ConversationID.self, forKey: .conversationId)
        seq = try container.decodeInteger(Int64.self, forKey: .seq)
    }
}

/// A member's read (or delivered) watermark after it moved; pushed to the other members as a
/// `receipt` (or `delivered`) frame.
public struct ReadReceipt: Codable, Hashable, Sendable {
    public var conversationId: ConversationID
    public var userId: UserID
    public var seq: Int64

    public init(conversationId: ConversationID, userId: UserID, seq: Int64) {
        self.conversationId = conversationId
        self.userId = userId
        self.seq = seq
    }
}
