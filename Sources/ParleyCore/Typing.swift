/// The WebSocket `typing` frame: the user is typing in `conversationId` (`typing: true`,
/// sent again every ``Limits/typingRefreshMs`` while it lasts) or stopped (`false`).
public struct TypingRequest: Codable, Sendable, Hashable, StrictDecodable {
    public var conversationId: ConversationID?
    public var typing: Bool

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case conversationId, typing
    }

    public init(conversationId: ConversationID, typing: Bool) {
        self.conversationId = conversationId
        self.typing = typing
    }
}

/// The pushed `typing` frame: `userId` is typing in `conversationId`, until `expiresInMs`
/// from now unless refreshed, or (`typing: false`) stopped.
public struct TypingNotice: Codable, Sendable, Hashable {
    public var conversationId: ConversationID
    public var userId: UserID
    public var typing: Bool
    public var expiresInMs: Int64

    public init(conversationId: ConversationID, userId: UserID, typing: Bool, expiresInMs: Int64) {
        self.conversationId = conversationId
        self.userId = userId
        self.typing = typing
        self.expiresInMs = expiresInMs
    }
}
