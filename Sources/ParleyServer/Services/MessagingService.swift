import Foundation
import ParleyCore
import ParleyStore

/// Conversations, messages, read state and sync: the operations both the HTTP API and the
/// WebSocket gateway expose, validated once here.
public struct MessagingService: Sendable {
    let store: any ParleyStore
    let clock: WallClock
    let metrics: ServerMetrics

    func send(_ request: SendMessageRequest, from identity: Identity, origin: ConnectionTag? = nil) async throws
        -> SendMessageResponse
    {
        let target: MessageTarget
        switch (request.conversationId, request.toUserId) {
        case (let conversationId?, nil): target = .conversation(conversationId)
        case (nil, let userId?): target = .directWith(userId)
        default:
            throw ParleyError(.invalidField, "Give exactly one of 'conversationId' and 'toUserId'.")
        }
        try Self.validateClientMessageID(request.clientMsgId)
        try Self.validateKind(request.kind)
        _ = try MessageContent(kind: request.kind, content: request.content)
        let message = try NewMessage(
            target: target, senderId: identity.userId, clientMsgId: request.clientMsgId, kind: request.kind,
            content: request.content, sentAt: clock.now(), origin: origin)
        guard message.contentJSON.utf8.count <= Limits.maxContentBytes else {
            throw ParleyError(.messageInvalid, "Message content may be at most \(Limits.maxContentBytes) bytes.")
        }
        let started = ContinuousClock.now
        let result = try await store.appendMessage(message)
        if !result.duplicate {
            metrics.commitLatency.record(ContinuousClock.now - started)
            metrics.messagesCommitted.increment()
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

    func sync(_ request: SyncRequest, for identity: Identity) async throws -> SyncResponse {
        let limit = request.limit ?? Limits.defaultSyncPageSize
        guard (1...Limits.maxSyncPageSize).contains(limit) else {
            throw ParleyError(.invalidField, "'limit' must be between 1 and \(Limits.maxSyncPageSize).")
        }
        let cursor = try request.cursor.map(SyncCursor.init(encoded:))
        let batch = try await store.sync(userId: identity.userId, since: cursor, limit: limit)
        return SyncResponse(
            conversations: batch.conversations, events: batch.events, cursor: batch.cursor.encoded,
            hasMore: batch.hasMore)
    }

    func createGroup(_ request: CreateGroupRequest, by identity: Identity) async throws -> ConversationDetail {
        let name = try TextRules.name(request.name, field: "name", maxLength: Limits.maxGroupNameLength)
        let summary = try await store.createGroup(
            name: name, ownerId: identity.userId, memberIds: request.memberIds, at: clock.now())
        return try await store.conversation(summary.id, for: identity.userId)
    }

    func openDirect(with userId: UserID, by identity: Identity) async throws -> ConversationDetail {
        let summary = try await store.openDirectConversation(between: identity.userId, and: userId, at: clock.now())
        return try await store.conversation(summary.id, for: identity.userId)
    }

    func addMembers(_ userIds: [UserID], to conversationId: ConversationID, by identity: Identity) async throws
        -> ConversationDetail
    {
        guard !userIds.isEmpty else { throw ParleyError(.invalidField, "'userIds' must not be empty.") }
        _ = try await store.addMembers(userIds, to: conversationId, by: identity.userId, at: clock.now())
        return try await store.conversation(conversationId, for: identity.userId)
    }

    func conversation(_ id: ConversationID, for identity: Identity) async throws -> ConversationDetail {
        try await store.conversation(id, for: identity.userId)
    }

    /// A page of the caller's conversations, most recently active first, and the cursor of
    /// the next page when there is one.
    func conversations(for identity: Identity, cursor: String?, limit: Int?) async throws
        -> (conversations: [ConversationSummary], nextCursor: String?)
    {
        let limit = limit ?? Limits.defaultSyncPageSize
        guard (1...Limits.maxSyncPageSize).contains(limit) else {
            throw ParleyError(.invalidField, "'limit' must be between 1 and \(Limits.maxSyncPageSize).")
        }
        let after = try cursor.map(ConversationListCursor.init(encoded:))
        var page = try await store.conversations(of: identity.userId, after: after, limit: limit + 1)
        guard page.count > limit else { return (page, nil) }
        page.removeLast(page.count - limit)
        return (page, page.last.map { ConversationListCursor(after: $0).encoded })
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
    }

    static func validateKind(_ kind: MessageKind) throws {
        guard (1...32).contains(kind.rawValue.utf8.count),
            kind.rawValue.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "."
            })
        else {
            throw ParleyError(.messageInvalid, "'kind' must be 1 to 32 characters of a-z, 0-9, '_' and '.'.")
        }
        guard kind != .system else {
            throw ParleyError(.messageInvalid, "System messages are written by the server only.")
        }
    }
}
