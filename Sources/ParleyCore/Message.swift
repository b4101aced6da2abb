/// The kind of a message, as a string so that kinds added later pass through older code.
public struct MessageKind: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let text: MessageKind = "text"
    public static let image: MessageKind = "image"
    public static let voice: MessageKind = "voice"
    public static let video: MessageKind = "video"
    public static let file: MessageKind = "file"
    public static let sticker: MessageKind = "sticker"
    public static let location: MessageKind = "location"
    public static let reply: MessageKind = "reply"
    /// Notices the server writes itself (member joined, …); clients may not send them.
    public static let system: MessageKind = "system"
    /// What a recalled message becomes: its content is gone, `{"recalledBy": <user id>}` is
    /// left. Clients may not send it.
    public static let recalled: MessageKind = "recalled"
    /// What history shows, to one user, in place of a message they deleted for themselves
    /// (content `{}`). Clients may not send it.
    public static let deleted: MessageKind = "deleted"

    /// The kinds only the server writes.
    public static let serverOnly: Set<MessageKind> = [.system, .recalled, .deleted]
}

/// A committed message. `(conversationId, seq)` is its position: seqs are dense and strictly
/// increasing within a conversation, and order is seq order.
public struct Message: Codable, Hashable, Sendable {
    public var id: MessageID
    public var conversationId: ConversationID
    public var seq: Int64
    public var senderId: UserID
    public var clientMsgId: String
    public var kind: MessageKind
    /// The content exactly as sent; see ``MessageContent`` for the typed view.
    public var content: JSONValue
    /// Server commit time, milliseconds since 1970.
    public var sentAt: Int64
    /// The message this one replies to, as it now stands (written by the server); absent
    /// when it replies to none.
    public var quote: MessageQuote?
    /// True when it was forwarded from another message; absent otherwise.
    public var forwarded: Bool?
    /// When its text was last edited (ms since 1970); absent when never edited.
    public var editedAt: Int64?

    public init(
        id: MessageID, conversationId: ConversationID, seq: Int64, senderId: UserID, clientMsgId: String,
        kind: MessageKind, content: JSONValue, sentAt: Int64, quote: MessageQuote? = nil, forwarded: Bool? = nil,
        editedAt: Int64? = nil
    ) {
        self.id = id
        self.conversationId = conversationId
        self.seq = seq
        self.senderId = senderId
        self.clientMsgId = clientMsgId
        self.kind = kind
        self.content = content
        self.sentAt = sentAt
        self.quote = quote
        self.forwarded = forwarded
        self.editedAt = editedAt
    }

    /// Whether it was forwarded.
    public var isForwarded: Bool { forwarded == true }
    /// Whether it was recalled (its content is gone).
    public var isRecalled: Bool { kind == .recalled }

    /// The typed content; `.unsupported` for a kind this version does not know.
    public var typedContent: MessageContent {
        (try? MessageContent(kind: kind, content: content)) ?? .unsupported(kind: kind, content: content)
    }
}

/// `POST /v1/messages` and the WebSocket `send` frame.
///
/// Exactly one of `conversationId` and `toUserId` is set; `toUserId` sends into the direct
/// conversation with that user, creating it on the first message. `clientMsgId` is chosen by
/// the client and makes the send idempotent: a retry returns the original message.
public struct SendMessageRequest: Codable, Sendable, StrictDecodable {
    public var conversationId: ConversationID?
    public var toUserId: UserID?
    public var clientMsgId: String
    public var kind: MessageKind
    public var content: JSONValue

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case conversationId, toUserId, clientMsgId, kind, content
    }

    public init(
        conversationId: ConversationID? = nil, toUserId: UserID? = nil, clientMsgId: String, kind: MessageKind,
        content: JSONValue
    ) {
        self.conversationId = conversationId
        self.toUserId = toUserId
        self.clientMsgId = clientMsgId
        self.kind = kind
        self.content = content
    }

    /// A text message into a conversation.
    public static func text(_ text: String, to conversationId: ConversationID, clientMsgId: String) -> Self {
        .init(
            conversationId: conversationId, clientMsgId: clientMsgId, kind: .text,
            content: .object(["text": .string(text)]))
    }
}

/// The answer to a send: the committed message, and whether it had been committed before
/// (a retry of an earlier send with the same `clientMsgId`).
public struct SendMessageResponse: Codable, Sendable {
    public var message: Message
    public var duplicate: Bool

    public init(message: Message, duplicate: Bool) {
        self.message = message
        self.duplicate = duplicate
    }
}

/// Which page of a conversation's history to read. With neither bound, the newest page.
public struct HistoryQuery: Codable, Sendable, Hashable, StrictDecodable {
    public var conversationId: ConversationID?
    /// Messages with seq < `before`, newest first in selection, returned in seq order.
    public var before: Int64?
    /// Messages with seq > `after`, in seq order.
    public var after: Int64?
    public var limit: Int?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case conversationId, before, after, limit
    }

    public init(conversationId: ConversationID? = nil, before: Int64? = nil, after: Int64? = nil, limit: Int? = nil) {
        self.conversationId = conversationId
        self.before = before
        self.after = after
        self.limit = limit
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        conversationId = try container.decodeIfPresent(ConversationID.self, forKey: .conversationId)
        before = try container.decodeIntegerIfPresent(Int64.self, forKey: .before)
        after = try container.decodeIntegerIfPresent(Int64.self, forKey: .after)
        limit = try container.decodeIntegerIfPresent(Int.self, forKey: .limit)
    }
}

/// A page of history, always in ascending seq order.
public struct HistoryPage: Codable, Sendable, Hashable {
    public var messages: [Message]
    /// True when more messages lie beyond this page in the direction asked for.
    public var hasMore: Bool

    public init(messages: [Message], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}
