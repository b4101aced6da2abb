import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    /// Reads one consistent snapshot for ``SyncPaging``. SQLite commits one writer at a time,
    /// so the version counter read in a snapshot covers exactly the changes visible in it.
    public func sync(userId: UserID, since cursor: SyncCursor?, limit: Int) async throws -> SyncBatch {
        try await pool.read { db in
            guard
                let userEventSeq = try Int64.fetchOne(
                    db, sql: "SELECT event_seq FROM users WHERE id = ?", arguments: [userId.rawValue])
            else {
                throw ParleyError(.userNotFound, "No such user.")
            }
            let currentVersion = try Int64.fetchOne(
                db, sql: "SELECT value FROM counters WHERE name = 'change_version'")!
            let paging = SyncPaging(cursor: cursor, userEventSeq: userEventSeq, limit: limit)
            let eventBodies = try String.fetchAll(
                db, sql: "SELECT body FROM user_events WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                arguments: [userId.rawValue, paging.since.eventSeq, paging.fetchLimit])
            let changed = try Self.summaryRows(
                db, for: userId, where: "c.version > ? OR m.version > ?", orderBy: "change_version",
                limit: paging.fetchLimit, arguments: [paging.since.version, paging.since.version]
            ) {
                (
                    summary: try ConversationSummary(row: $0, layout: $1, viewer: userId),
                    changeVersion: $0[$1.changeVersion] as Int64
                )
            }
            return try paging.batch(eventBodies: eventBodies, changed: changed, currentVersion: currentVersion)
        }
    }
}
