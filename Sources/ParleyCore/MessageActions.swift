/// What a reply shows of the message it quotes, written by the server from that message as
/// it now stands: recalled (kind `recalled`, no text) or edited, the quote follows.
public struct MessageQuote: Codable, Hashable, Sendable {
    public var id: MessageID
    public var seq: Int64
    public var senderId: UserID
    public var kind: MessageKind
    /// The start of its text (at most ``Limits/quoteSnippetLength`` characters) for a text or
    /// reply; absent for other kinds, which clients show by kind.
    public var text: String?

    public init(id: MessageID, seq: Int64, senderId: UserID, kind: MessageKind, text: String?) {
        self.id = id
        self.seq = seq
        self.senderId = senderId
        self.kind = kind
        self.text = text
    }

    /// The quote of `message`.
    public init(of message: Message) {
        var text: String?
        switch message.typedContent {
        case .text(let body, _), .reply(let body, _, _): text = String(body.prefix(Limits.quoteSnippetLength))
        default: text = nil
        }
        self.init(id: message.id, seq: message.seq, senderId: message.senderId, kind: message.kind, text: text)
    }
}

/// Whom a text or reply mentions: users by id, and everyone (`@all`, which only the owner
/// and admins of a group may use).
public struct Mentions: Hashable, Sendable {
    public var userIds: [UserID]
    public var all: Bool

    public init(_ userIds: [UserID] = [], all: Bool = false) {
        self.userIds = userIds
        self.all = all
    }

    public static let none = Mentions()

    /// Whether it mentions anyone.
    public var isEmpty: Bool { userIds.isEmpty && !all }
}

/// `POST /v1/messages/forward` and the WebSocket `forward` frame: a copy of message `messageId`
/// sent as a new message that says it was forwarded. Exactly one of `conversationId` and
/// `toUserId`, as for a send; `clientMsgId` makes it idempotent in the same way. The copy
/// keeps the kind and content (a file is not uploaded again), without mentions or a quote.
public struct ForwardMessageRequest: Codable, Sendable, Hashable, StrictDecodable {
    public var messageId: MessageID
    public var conversationId: ConversationID?
    public var toUserId: UserID?
    public var clientMsgId: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case messageId, conversationId, toUserId, clientMsgId
    }

    public init(
        messageId: MessageID, conversationId: ConversationID? = nil, toUserId: UserID? = nil, clientMsgId: String
    ) {
        self.messageId = messageId
        self.conversationId = conversationId
        self.toUserId = toUserId
        self.clientMsgId = clientMsgId
    }
}

/// `PATCH /v1/messages/{messageId}` and the WebSocket `edit` frame: the new text of one's own
/// text or reply, within the edit window. Mentions stay as they were sent.
public struct EditMessageRequest: Codable, Sendable, Hashable, StrictDecodable {
    /// Required in the frame; over HTTP the path names the message (and this must match it).
    public var messageId: MessageID?
    public var text: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case messageId, text
    }

    public init(messageId: MessageID? = nil, text: String) {
        self.messageId = messageId
        self.text = text
    }
}

/// The WebSocket `recall` frame (`POST /v1/messages/{messageId}/recall` over HTTP).
public struct RecallRequest: Codable, Sendable, Hashable, StrictDecodable {
    public var messageId: MessageID

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case messageId
    }

    public init(messageId: MessageID) { self.messageId = messageId }
}

/// `POST /v1/conversations/{conversationId}/messages/delete`: hides these messages from the
/// caller on all their devices; others keep them.
public struct DeleteMessagesRequest: Codable, Sendable, Hashable, StrictDecodable {
    /// 1 to ``Limits/maxDeleteBatch`` seqs the caller may read.
    public var seqs: [Int64]

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case seqs
    }

    public init(seqs: [Int64]) { self.seqs = seqs }

    public init(from decoder: any Decoder) throws {
        seqs = try decoder.container(keyedBy: CodingKeys.self).decodeIntegers(Int64.self, forKey: .seqs)
    }
}

/// One member's watermarks: everything up to `readSeq` is read, up to `deliveredSeq` reached
/// one of their devices.
public struct MemberReceipt: Codable, Sendable, Hashable {
    public var userId: UserID
    public var readSeq: Int64
    public var deliveredSeq: Int64

    public init(userId: UserID, readSeq: Int64, deliveredSeq: Int64) {
        self.userId = userId
        self.readSeq = readSeq
        self.deliveredSeq = deliveredSeq
    }
}

/// `GET /v1/conversations/{conversationId}/receipts`: every member's watermarks, from which
/// "read by N" of each message follows (a member read seq `s` when `readSeq >= s`).
public struct ReceiptList: Codable, Sendable, Hashable {
    public var conversationId: ConversationID
    public var members: [MemberReceipt]

    public init(conversationId: ConversationID, members: [MemberReceipt]) {
        self.conversationId = conversationId
        self.members = members
    }

    /// Who, other than its sender, has read message `seq` sent by `senderId`, and who has not.
    public func readers(of seq: Int64, sentBy senderId: UserID) -> MessageReaders {
        let others = members.filter { $0.userId != senderId }
        return MessageReaders(
            seq: seq, readBy: others.filter { $0.readSeq >= seq }.map(\.userId),
            unreadBy: others.filter { $0.readSeq < seq }.map(\.userId))
    }
}

/// `GET /v1/conversations/{conversationId}/messages/{seq}/readers`: who has read one message.
public struct MessageReaders: Codable, Sendable, Hashable {
    public var seq: Int64
    public var readBy: [UserID]
    public var unreadBy: [UserID]

    public init(seq: Int64, readBy: [UserID], unreadBy: [UserID]) {
        self.seq = seq
        self.readBy = readBy
        self.unreadBy = unreadBy
    }
}
