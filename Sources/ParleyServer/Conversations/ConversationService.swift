import Foundation
import ParleyCore
import ParleyStore

/// Listing, creating and reading conversations.
struct ConversationService: Sendable {
    let store: any ParleyStore
    let clock: WallClock
    /// The member limit new groups get.
    let maxGroupMembers: Int
    /// The sensitive-word filter group names must pass.
    let words: WordFilter
    /// Told of what may push to users with no device connected.
    let pushes: PushDispatcher

    func createGroup(_ request: CreateGroupRequest, by identity: Identity) async throws -> ConversationDetail {
        let name = try TextRules.name(request.name, field: "name", maxLength: Limits.maxGroupNameLength)
        try words.check(name, field: "name")
        let summary = try await store.createGroup(
            name: name, ownerId: identity.userId, memberIds: request.memberIds, memberLimit: maxGroupMembers,
            at: clock.now())
        let invited = Array(Set(request.memberIds).subtracting([identity.userId]))
        if !invited.isEmpty { pushes.enqueue(.invitation(group: summary.id, by: identity.userId, users: invited)) }
        return try await store.conversation(summary.id, for: identity.userId)
    }

    func openDirect(with userId: UserID, by identity: Identity) async throws -> ConversationDetail {
        let summary = try await store.openDirectConversation(between: identity.userId, and: userId, at: clock.now())
        return try await store.conversation(summary.id, for: identity.userId)
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
