import Foundation
import ParleyCore
import ParleyStore

/// What changed for a user since a cursor, for HTTP and the WebSocket alike.
struct SyncService: Sendable {
    let store: any ParleyStore

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
}
