import ParleyCore

/// One message of a conversation as a UI shows it: committed, or still on its way.
public struct ChatItem: Identifiable, Hashable, Sendable {
    /// How far one of the user's own messages got.
    public enum Delivery: Hashable, Sendable {
        /// Its files are being uploaded: how many of their bytes are on the server.
        case uploading(TransferProgress)
        case sending
        case sent
        /// It reached a device of the other member of a direct conversation.
        case delivered
        /// Another member's read watermark reached it.
        case read
        case failed(reason: String, retryable: Bool)
    }

    /// Stable across the move from outbox to committed: `<senderId>/<clientMsgId>`.
    public var id: String
    public var senderId: UserID
    public var clientMsgId: String
    /// Nil while the message is not committed.
    public var seq: Int64?
    public var kind: MessageKind
    public var content: JSONValue
    /// Commit time, or queue time while pending (ms since 1970).
    public var time: Int64
    /// Set for the user's own messages only.
    public var delivery: Delivery?
    /// The server's id of the message; nil while it is not committed.
    public var messageId: MessageID?
    /// What a reply quotes, as that message now stands (kind `recalled` once it was recalled).
    public var quote: MessageQuote?
    /// Whether it is a forwarded copy of another message.
    public var isForwarded = false
    /// When its text was last edited (ms since 1970); nil when never edited.
    public var editedAt: Int64?
    /// For one of the user's own messages that they recalled: its text, kept on this device
    /// only, to edit and send again.
    public var recalledText: String?
    /// For the user's own messages in a group, how many other members have read it, once the
    /// receipts are known (``ChatContext/loadReceipts()``).
    public var readBy: Int?
    /// The local files of a media message still on its way that are not uploaded yet: a
    /// screen shows the image from here until the server has it.
    public var localFiles: [OutgoingFile] = []

    /// An item made by hand (previews, tests).
    public init(
        id: String, senderId: UserID, clientMsgId: String, seq: Int64?, kind: MessageKind, content: JSONValue,
        time: Int64, delivery: Delivery?, messageId: MessageID? = nil, quote: MessageQuote? = nil,
        isForwarded: Bool = false, editedAt: Int64? = nil, recalledText: String? = nil, readBy: Int? = nil
    ) {
        self.id = id
        self.senderId = senderId
        self.clientMsgId = clientMsgId
        self.seq = seq
        self.kind = kind
        self.content = content
        self.time = time
        self.delivery = delivery
        self.messageId = messageId
        self.quote = quote
        self.isForwarded = isForwarded
        self.editedAt = editedAt
        self.recalledText = recalledText
        self.readBy = readBy
    }

    /// A committed message; `receipts` say how far the user's own ones got.
    init(message: Message, selfId: UserID, receipts: Receipts, recalledText: String? = nil) {
        id = "\(message.senderId)/\(message.clientMsgId)"
        senderId = message.senderId
        clientMsgId = message.clientMsgId
        seq = message.seq
        kind = message.kind
        content = message.content
        time = message.sentAt
        messageId = message.id
        quote = message.quote
        isForwarded = message.isForwarded
        editedAt = message.editedAt
        self.recalledText = message.senderId == selfId && message.isRecalled ? recalledText : nil
        delivery = message.senderId == selfId ? receipts.delivery(of: message.seq) : nil
        readBy = message.senderId == selfId ? receipts.readBy(message.seq, sentBy: selfId) : nil
    }

    init(pending item: OutboxItem, selfId: UserID) {
        id = "\(selfId)/\(item.clientMsgId)"
        senderId = selfId
        clientMsgId = item.clientMsgId
        seq = nil
        kind = item.kind
        content = item.content
        time = item.createdAt
        localFiles = item.files
        switch item.state {
        case .failed(let reason, let retryable): delivery = .failed(reason: reason, retryable: retryable)
        default: delivery = .sending
        }
    }

    /// Whether it was recalled (its content is gone).
    public var isRecalled: Bool { kind == .recalled }

    /// Who recalled it (its sender, or a group's owner or admin); nil unless recalled.
    public var recalledBy: UserID? {
        if case .recalled(let by) = typedContent { return by }
        return nil
    }

    /// Whether it is committed (not still on its way or failed).
    public var isCommitted: Bool {
        switch delivery {
        case .uploading?, .sending?, .failed?: false
        default: seq != nil
        }
    }

    /// The typed content; `.unsupported` for kinds this version does not know.
    public var typedContent: MessageContent {
        (try? MessageContent(kind: kind, content: content)) ?? .unsupported(kind: kind, content: content)
    }
}

/// What observers of a ``ChatContext`` receive: the list once, then batched changes.
public enum ChatUpdate: Sendable {
    case snapshot([ChatItem])
    /// The steps from the previous list to `items`.
    case changes([ListChange<ChatItem>], items: [ChatItem])
}
