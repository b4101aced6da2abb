import ParleyCore

/// What changed for a user since a cursor.
public protocol SyncStore: Sendable {
    /// What changed for a user since `cursor` (nil: a full snapshot), at most `limit` of
    /// conversations and of events, paged by ``SyncPaging``.
    func sync(userId: UserID, since cursor: SyncCursor?, limit: Int) async throws -> SyncBatch
}
