import ParleyCore
import ParleyStore

/// Forward, recall, edit, delete for me and receipts: what members do with committed
/// messages, for the HTTP API and the WebSocket alike.
struct MessageActionService: Sendable {
    let store: any ParleyStore
    let messages: MessageService
    let clock: WallClock
    let windows: MessageWindows

    /// Sends a copy of a message the caller may read, marked forwarded (idempotent on
    /// `clientMsgId` like a send).
    func forward(_ request: ForwardMessageRequest, from identity: Identity, origin: ConnectionTag? = nil)
        async throws -> SendMessageResponse
    {
        let target = try MessageService.target(request.conversationId, request.toUserId)
        try MessageService.validateClientMessageID(request.clientMsgId)
        let copy: (kind: MessageKind, content: JSONValue)
        do {
            copy = try MessageRules.forwardedCopy(
                of: try await store.message(request.messageId, readableBy: identity.userId))
        } catch let error as ParleyError {
            // A retry of a forward that was committed answers with it, even if its source has
            // been recalled since; the append checks the retry as for a send.
            guard let original = try await store.message(sentBy: identity.userId, clientMsgId: request.clientMsgId)
            else { throw error }
            copy = (original.kind, original.content)
        }
        return try await messages.commit(
            try NewMessage(
                target: target, senderId: identity.userId, clientMsgId: request.clientMsgId, kind: copy.kind,
                content: copy.content, sentAt: clock.now(), origin: origin, forwarded: true))
    }

    func recall(_ id: MessageID, by identity: Identity) async throws -> Message {
        try await store.changeMessage(id, .recall, by: identity.userId, windows: windows, at: clock.now())
    }

    func edit(_ id: MessageID, _ request: EditMessageRequest, by identity: Identity) async throws -> Message {
        try await store.changeMessage(
            id, .edit(text: request.text), by: identity.userId, windows: windows, at: clock.now())
    }

    func delete(_ request: DeleteMessagesRequest, in conversationId: ConversationID, by identity: Identity)
        async throws -> MessagesDeleted
    {
        try await store.deleteMessages(request.seqs, in: conversationId, for: identity.userId, at: clock.now())
    }

    func markDelivered(_ conversationId: ConversationID, upTo seq: Int64, by identity: Identity) async throws
        -> ReadReceipt
    {
        guard seq >= 0 else { throw ParleyError(.invalidField, "'seq' must not be negative.") }
        return try await store.markDelivered(conversationId, by: identity.userId, upTo: seq)
    }

    func receipts(of conversationId: ConversationID, for identity: Identity) async throws -> ReceiptList {
        try await store.receipts(of: conversationId, for: identity.userId)
    }

    /// Who has read message `seq` (members other than its sender), from the read watermarks.
    func readers(of seq: Int64, in conversationId: ConversationID, for identity: Identity) async throws
        -> MessageReaders
    {
        let receipts = try await store.receipts(of: conversationId, for: identity.userId)
        let page = try await store.history(
            of: conversationId, for: identity.userId, query: HistoryQuery(after: seq - 1, limit: 1))
        guard seq >= 1, let message = page.messages.first, message.seq == seq else {
            throw ParleyError(.messageNotFound, "Conversation \(conversationId) has no message \(seq).")
        }
        return receipts.readers(of: seq, sentBy: message.senderId)
    }
}
