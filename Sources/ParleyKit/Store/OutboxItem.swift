import ParleyCore

/// Where a message waiting in the outbox stands.
public enum OutboxState: Sendable, Hashable {
    /// Stored locally and shown; being sent (or waiting for a connection).
    case sending
    /// Committed by the server at this seq.
    case sent(seq: Int64)
    /// Gave up: `retryable` failures (timeout, network) can be resent as they are; others
    /// (not a member, invalid content) cannot succeed unchanged.
    case failed(reason: String, retryable: Bool)
}

/// A message the user sent, from the moment it is typed until the server has it.
public struct OutboxItem: Sendable, Hashable, Identifiable {
    /// Local order of sends; the outbox sends in this order.
    public var localId: Int64
    public var clientMsgId: String
    public var conversationId: ConversationID?
    public var toUserId: UserID?
    public var kind: MessageKind
    public var content: JSONValue
    /// Wall-clock milliseconds when it was queued.
    public var createdAt: Int64
    public var state: OutboxState
    /// Queued after other work (an upload) that has not finished yet: not to be sent before.
    public var awaitsDependency: Bool
    /// Local files still to upload before it is sent (a media message); each uploaded one
    /// leaves this list and its id enters `content`.
    public var files: [OutgoingFile]

    public var id: String { clientMsgId }

    public init(
        localId: Int64, clientMsgId: String, conversationId: ConversationID?, toUserId: UserID?, kind: MessageKind,
        content: JSONValue, createdAt: Int64, state: OutboxState, awaitsDependency: Bool = false,
        files: [OutgoingFile] = []
    ) {
        self.localId = localId
        self.clientMsgId = clientMsgId
        self.conversationId = conversationId
        self.toUserId = toUserId
        self.kind = kind
        self.content = content
        self.createdAt = createdAt
        self.state = state
        self.awaitsDependency = awaitsDependency
        self.files = files
    }

    /// The request that sends it.
    public var request: SendMessageRequest {
        SendMessageRequest(
            conversationId: conversationId, toUserId: toUserId, clientMsgId: clientMsgId, kind: kind, content: content)
    }
}
