import Foundation
import ParleyCore
import ParleyStore

/// Sending, history and read state: the operations both the HTTP API and the WebSocket
/// gateway expose, validated once here.
struct MessageService: Sendable {
    let store: any ParleyStore
    let clock: WallClock
    let metrics: ServerMetrics
    /// Told of each new message, for the members with no device connected.
    let pushes: PushDispatcher
    /// Checks the files a message shows.
    let files: FileService
    /// Counts each sender's messages (`send`).
    let limiter: RateLimiter

    func send(_ request: SendMessageRequest, from identity: Identity, origin: ConnectionTag? = nil) async throws
        -> SendMessageResponse
    {
        let target = try Self.target(request.conversationId, request.toUserId)
        try Self.validateClientMessageID(request.clientMsgId)
        try Self.validateKind(request.kind)
        let content = try MessageContent(kind: request.kind, content: request.content)
        try await files.checkFiles(of: content, kind: request.kind, sentBy: identity.userId)
        try await limiter.take(.send, for: identity.userId)
        var replyTo: MessageID?
        if case .reply(_, let id, _) = content { replyTo = id }
        return try await commit(
            try NewMessage(
                target: target, senderId: identity.userId, clientMsgId: request.clientMsgId, kind: request.kind,
                content: request.content, sentAt: clock.now(), origin: origin, replyTo: replyTo,
                mentions: content.mentions))
    }

    /// Where a send or forward goes: exactly one of a conversation and a user.
    static func target(_ conversationId: ConversationID?, _ userId: UserID?) throws -> MessageTarget {
        switch (conversationId, userId) {
        case (let conversationId?, nil): return .conversation(conversationId)
        case (nil, let userId?): return .directWith(userId)
        default: throw ParleyError(.invalidField, "Give exactly one of 'conversationId' and 'toUserId'.")
        }
    }

    /// Appends a checked message (a send or a forward), with the size limit and the metrics.
    func commit(_ message: NewMessage) async throws -> SendMessageResponse {
        guard message.contentJSON.utf8.count <= Limits.maxContentBytes else {
            throw ParleyError(.messageInvalid, "Message content may be at most \(Limits.maxContentBytes) bytes.")
        }
        let started = ContinuousClock.now
        let result = try await store.appendMessage(message)
        if !result.duplicate {
            metrics.commitLatency.record(ContinuousClock.now - started)
            metrics.messagesCommitted.increment()
            pushes.enqueue(result.message, to: result.recipients)
        }
        return SendMessageResponse(message: result.message, duplicate: result.duplicate)
    }

    func history(_ query: HistoryQuery, in conversationId: ConversationID, for identity: Identity) async throws
        -> HistoryPage
    {
        if let limit = query.limit, !(1...Limits.maxPageSize).contains(limit) {
            throw ParleyError(.invalidField, "'limit' must be between 1 and \(Limits.maxPageSize).")
        }
        return try await store.history(of: conversationId, for: identity.userId, query: query)
    }

    /// Moves the caller's read watermark; answers with the watermark as it now stands.
    func markRead(_ conversationId: ConversationID, upTo seq: Int64, by identity: Identity) async throws -> ReadReceipt
    {
        guard seq >= 0 else { throw ParleyError(.invalidField, "'seq' must not be negative.") }
        if let receipt = try await store.markRead(conversationId, by: identity.userId, upTo: seq, at: clock.now()) {
            return receipt
        }
        let current = try await store.conversation(conversationId, for: identity.userId).conversation.readSeq
        return ReadReceipt(conversationId: conversationId, userId: identity.userId, seq: current)
    }

    static func validateClientMessageID(_ id: String) throws {
        guard (1...Limits.maxClientMessageIDLength).contains(id.utf8.count),
            id.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7f })
        else {
            throw ParleyError(
                .invalidField,
                "'clientMsgId' must be 1 to \(Limits.maxClientMessageIDLength) printable ASCII characters without spaces."
            )
        }
        guard !id.hasPrefix(NewMessage.noticeIDPrefix) else {
            throw ParleyError(
                .invalidField,
                "'clientMsgId' may not start with '\(NewMessage.noticeIDPrefix)': the server's notices do.")
        }
    }

    static func validateKind(_ kind: MessageKind) throws {
        guard (1...32).contains(kind.rawValue.utf8.count),
            kind.rawValue.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "."
            })
        else {
            throw ParleyError(.messageInvalid, "'kind' must be 1 to 32 characters of a-z, 0-9, '_' and '.'.")
        }
        guard !MessageKind.serverOnly.contains(kind) else {
            throw ParleyError(.messageInvalid, "Messages of kind '\(kind.rawValue)' are written by the server only.")
        }
    }
}
