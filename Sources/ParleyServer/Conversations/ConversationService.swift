import Foundation
import ParleyCore
import ParleyStore

/// Conversations, their members and their profile, for HTTP and the WebSocket alike.
struct ConversationService: Sendable {
    let store: any ParleyStore
    let clock: WallClock

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

    /// Renames a group the caller is in; every member hears `conversation.updated` (nothing
    /// happens when the name is already that).
    func rename(_ conversationId: ConversationID, to name: String, by identity: Identity) async throws
        -> ConversationDetail
    {
        let name = try TextRules.name(name, field: "name", maxLength: Limits.maxGroupNameLength)
        _ = try await store.renameGroup(conversationId, to: name, by: identity.userId, at: clock.now())
        return try await store.conversation(conversationId, for: identity.userId)
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
}
