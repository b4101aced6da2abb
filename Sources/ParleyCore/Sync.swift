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
