import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func updateSettings(
        _ change: UpdateSettingsRequest, of conversationId: ConversationID, for userId: UserID, at now: Int64
    ) async throws -> ConversationSettings? {
        try await write { db in try self.applySettings(db, change, of: conversationId, for: userId, at: now) }
    }

    /// ``updateSettings(_:of:for:at:)`` inside the current transaction.
    func applySettings(
        _ db: Database, _ change: UpdateSettingsRequest, of conversationId: ConversationID, for userId: UserID,
        at now: Int64
    ) throws -> ConversationSettings? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT m.*, c.max_seq FROM members m JOIN conversations c ON c.id = m.conversation_id
                    WHERE m.conversation_id = ? AND m.user_id = ?
                    """,
                arguments: [conversationId.rawValue, userId.rawValue])
        else { throw ParleyError.notAMember(of: conversationId) }
        let current = ConversationSettings(row: row)
        let next = current.applying(change, at: now, maxSeq: row["max_seq"])
        guard next != current else { return nil }
        try db.execute(
            sql: """
                UPDATE members SET pinned_at = ?, muted = ?, hidden_seq = ?, draft = ?, draft_at = ?,
                    cleared_seq = ?, version = ?
                WHERE conversation_id = ? AND user_id = ?
                """,
            arguments: [
                next.pinnedAt, next.muted, next.hiddenUpToSeq, next.draft, next.draftSavedAt, next.clearedUpToSeq,
                try nextVersion(db), conversationId.rawValue, userId.rawValue,
            ])
        try announce(
            db, [Announcement(to: [userId], SettingsUpdated(conversationId: conversationId, settings: next).body)],
            at: now)
        return next
    }
}
