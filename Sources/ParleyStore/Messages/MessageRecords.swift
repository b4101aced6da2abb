import ParleyCore

/// Where a new message goes.
public enum MessageTarget: Sendable, Hashable {
    case conversation(ConversationID)
    /// The direct conversation with this user, created on the first message.
    case directWith(UserID)
}

/// A message to append; content already validated.
public struct NewMessage: Sendable {
    public var target: MessageTarget
    public var senderId: UserID
    public var clientMsgId: String
    public var kind: MessageKind
    public let content: JSONValue
    /// `content` as JSON text, encoded once: what is stored, and what size limits apply to.
    public let contentJSON: String
    public var sentAt: Int64
    /// The connection that sent it, which gets the ack and so needs no push of its own.
    public var origin: ConnectionTag?
    /// The message a reply quotes (checked and quoted in the append's transaction).
    public var replyTo: MessageID?
    /// Whom it mentions (checked against the members in the append's transaction).
    public var mentions: Mentions
    /// Whether it is a forwarded copy.
    public var forwarded: Bool
    /// Its searchable text, folded (``SearchText``), computed before the write transaction.
    public let searchText: String?
    /// The files it shows, which the append records as referenced by it.
    public let fileIds: [String]

    public init(
        target: MessageTarget, senderId: UserID, clientMsgId: String, kind: MessageKind, content: JSONValue,
        sentAt: Int64, origin: ConnectionTag? = nil, replyTo: MessageID? = nil, mentions: Mentions = .none,
        forwarded: Bool = false
    ) throws {
        self.target = target
        self.senderId = senderId
        self.clientMsgId = clientMsgId
        self.kind = kind
        self.content = content
        var writer = JSONWriter()
        try writer.value(content)
        self.contentJSON = writer.text
        self.searchText = SearchText.searchableText(kind: kind, content: content).map(SearchText.fold)
        self.fileIds =
            FileRules.kinds.contains(kind)
            ? ((try? MessageContent(kind: kind, content: content))?.fileReferences.map(\.fileId) ?? []) : []
        self.sentAt = sentAt
        self.origin = origin
        self.replyTo = replyTo
        self.mentions = mentions
        self.forwarded = forwarded
    }
}

/// Identifies one live connection of one server node, so fan-out can skip the sender's own.
public struct ConnectionTag: Sendable, Hashable {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
}

/// The outcome of ``ParleyStore/appendMessage(_:)``.
public struct AppendResult: Sendable, Hashable {
    public var message: Message
    /// True when the message had been committed before with the same `clientMsgId`.
    public var duplicate: Bool
    /// The conversation's members at the send, the sender included (empty for a duplicate):
    /// whom the message goes to, for pushes to those not connected.
    public var recipients: [UserID]

    public init(message: Message, duplicate: Bool, recipients: [UserID] = []) {
        self.message = message
        self.duplicate = duplicate
        self.recipients = recipients
    }
}
