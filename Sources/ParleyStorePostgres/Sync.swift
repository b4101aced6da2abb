import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    /// Reads one REPEATABLE READ snapshot for ``SyncPaging``, taken once the version the
    /// cursor moves to has settled: the snapshot holds every change at or below it. Changes
    /// above it that committed meanwhile come too (a send acknowledged before the sync
    /// shows), and again in the next sync, which starts from the settled version.
    public func sync(userId: UserID, since cursor: SyncCursor?, limit: Int) async throws -> SyncBatch {
        let currentVersion = try await settledVersion()
        return try await read { connection in
            guard
                let userEventSeq = try await connection.scalar(
                    Int64.self, "SELECT event_seq FROM users WHERE id = $1", [.int(userId.rawValue)],
                    logger: self.logger)
            else { throw ParleyError(.userNotFound, "No such user.") }
            let paging = SyncPaging(cursor: cursor, userEventSeq: userEventSeq, limit: limit)
            let eventBodies = try await connection.rows(
                "SELECT body FROM user_events WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                [.int(userId.rawValue), .int(paging.since.eventSeq), .int(Int64(paging.fetchLimit))],
                logger: self.logger
            ).map { try $0.text("body") }
            let changed = try await self.summaryRows(
                connection, for: userId,
                where: "c.version > $2 OR m.version > $2", orderBy: "change_version",
                limit: Int64(paging.fetchLimit), [.int(paging.since.version)]
            ).decodeAll(layout: ConversationSummary.Layout.init) { row, layout in
                let summary = try ConversationSummary(row: row, layout: layout, viewer: userId)
                return (summary: summary, changeVersion: try row.int(layout.changeVersion))
            }
            return try paging.batch(eventBodies: eventBodies, changed: changed, currentVersion: currentVersion)
        }
    }
}
