/// The type of an entry in a user's event stream, as a string so that newer types pass
/// through older clients.
public struct UserEventType: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The user became a member of a conversation (created it, was added, or a direct one opened).
    public static let conversationAdded: UserEventType = "conversation.added"
    /// Other users joined a conversation the user is in (`userIds`).
    public static let membersAdded: UserEventType = "members.added"
    /// The user's own read watermark moved (`readSeq`), on any of their devices.
    public static let readMoved: UserEventType = "read.moved"
    /// The user's own profile changed (`account`).
    public static let profileUpdated: UserEventType = "profile.updated"
}

/// One entry of a user's ordered event stream (the "command list" of SPEC 3).
public struct UserEvent: Codable, Hashable, Sendable {
    /// Position in this user's stream: dense and strictly increasing.
    public var seq: Int64
    public var type: UserEventType
    public var conversationId: ConversationID?
    public var userIds: [UserID]?
    public var readSeq: Int64?
    public var account: Account?
    public var at: Int64

    public init(
        seq: Int64, type: UserEventType, conversationId: ConversationID? = nil, userIds: [UserID]? = nil,
        readSeq: Int64? = nil, account: Account? = nil, at: Int64
    ) {
        self.seq = seq
        self.type = type
        self.conversationId = conversationId
        self.userIds = userIds
        self.readSeq = readSeq
        self.account = account
        self.at = at
    }
}

/// `GET /v1/sync` and the WebSocket `sync` frame. No cursor asks for a full snapshot.
public struct SyncRequest: Codable, Sendable, Hashable, StrictDecodable {
    public var cursor: String?
    public var limit: Int?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case cursor, limit
    }

    public init(cursor: String? = nil, limit: Int? = nil) {
        self.cursor = cursor
        self.limit = limit
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
        limit = try container.decodeIntegerIfPresent(Int.self, forKey: .limit)
    }
}

/// What changed since a cursor: the conversations whose state moved, the user's events in
/// order, and the cursor to pass next time. When `hasMore` is true, call again at once with
/// the new cursor.
public struct SyncResponse: Codable, Sendable, Hashable {
    public var conversations: [ConversationSummary]
    public var events: [UserEvent]
    public var cursor: String
    public var hasMore: Bool

    public init(conversations: [ConversationSummary], events: [UserEvent], cursor: String, hasMore: Bool) {
        self.conversations = conversations
        self.events = events
        self.cursor = cursor
        self.hasMore = hasMore
    }
}
