import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    /// Reads one consistent snapshot: the events after the cursor, the conversations whose
    /// own or membership version is above the cursor's, and the version counter itself.
    /// SQLite commits one writer at a time, so the version counter read in a snapshot covers
    /// exactly the changes visible in it.
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
            let since = cursor ?? SyncCursor(eventSeq: userEventSeq, version: 0)

            let eventBodies = try String.fetchAll(
                db, sql: "SELECT body FROM user_events WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                arguments: [userId.rawValue, since.eventSeq, limit + 1])
            let events = try eventBodies.prefix(limit).map { try JSONText.decode(UserEvent.self, from: $0) }

            let conversations = try Self.summaries(
                db, for: userId, where: "c.version > ? OR m.version > ?", orderBy: "change_version",
                limit: limit + 1, arguments: [since.version, since.version])
            let moreEvents = eventBodies.count > limit
            let moreConversations = conversations.count > limit
            let page = Array(conversations.prefix(limit))

            let next = SyncCursor(
                eventSeq: events.last?.seq ?? since.eventSeq,
                version: moreConversations ? try Self.changeVersion(db, of: page.last!.id, for: userId) : currentVersion
            )
            return SyncBatch(
                conversations: page, events: events, cursor: next, hasMore: moreEvents || moreConversations)
        }
    }

    private static func changeVersion(_ db: Database, of id: ConversationID, for userId: UserID) throws -> Int64 {
        try Int64.fetchOne(
            db,
            sql: """
                SELECT MAX(c.version, m.version) FROM conversations c
                JOIN members m ON m.conversation_id = c.id AND m.user_id = ? WHERE c.id = ?
                """,
            arguments: [userId.rawValue, id.rawValue])!
    }
}
