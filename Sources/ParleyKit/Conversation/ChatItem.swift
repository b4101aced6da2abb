import ParleyCore

/// One message of a conversation as a UI shows it: committed, or still on its way.
public struct ChatItem: Identifiable, Hashable, Sendable {
    /// How far one of the user's own messages got.
    public enum Delivery: Hashable, Sendable {
        case sending
        case sent
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

    /// An item made by hand (previews, tests).
    public init(
        id: String, senderId: UserID, clientMsgId: String, seq: Int64?, kind: MessageKind, content: JSONValue,
        time: Int64,
        delivery: Delivery?
    ) {
        self.id = id
        self.senderId = senderId
        self.clientMsgId = clientMsgId
        self.seq = seq
        self.kind = kind
        self.content = content
        self.time = time
        self.delivery = delivery
    }

    init(message: Message, selfId: UserID, othersReadSeq: Int64) {
        id = "\(message.senderId)/\(message.clientMsgId)"
        senderId = message.senderId
        clientMsgId = message.clientMsgId
        seq = message.seq
        kind = message.kind
        content = message.content
        time = message.sentAt
        delivery = message.senderId == selfId ? (message.seq <= othersReadSeq ? .read : .sent) : nil
    }

    init(pending item: OutboxItem, selfId: UserID) {
        id = "\(selfId)/\(item.clientMsgId)"
        senderId = selfId
        clientMsgId = item.clientMsgId
        seq = nil
        kind = item.kind
        content = item.content
        time = item.createdAt
        switch item.state {
        case .failed(let reason, let retryable): delivery = .failed(reason: reason, retryable: retryable)
        default: delivery = .sending
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
