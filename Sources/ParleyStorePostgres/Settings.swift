import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func updateSettings(
        _ change: UpdateSettingsRequest, of conversationId: ConversationID, for userId: UserID, at now: Int64
    ) async throws -> ConversationSettings? {
        try await write { connection, notes in
            try await self.applySettings(connection, notes, change, of: conversationId, for: userId, at: now)
        }
    }

    /// ``updateSettings(_:of:for:at:)`` inside the current transaction.
    func applySettings(
        _ connection: PostgresConnection, _ notes: Notifications, _ change: UpdateSettingsRequest,
        of conversationId: ConversationID, for userId: UserID, at now: Int64
    ) async throws -> ConversationSettings? {
        guard
            let row = try await connection.rows(
                """
                SELECT m.*, c.max_seq FROM members m JOIN conversations c ON c.id = m.conversation_id
                WHERE m.conversation_id = $1 AND m.user_id = $2
                """,
                [.int(conversationId.rawValue), .int(userId.rawValue)], logger: logger
            ).first
        else { throw ParleyError.notAMember(of: conversationId) }
        let current = try ConversationSettings(row: row)
        let next = current.applying(change, at: now, maxSeq: try row.int("max_seq"))
        guard next != current else { return nil }
        try await connection.rows(
            """
            UPDATE members SET pinned_at = $1, muted = $2, hidden_seq = $3, draft = $4, draft_at = $5, version = $6,
                cleared_seq = $9
            WHERE conversation_id = $7 AND user_id = $8
            """,
            [
                SQLValue(next.pinnedAt), .bool(next.muted), SQLValue(next.hiddenUpToSeq), .text(next.draft),
                SQLValue(next.draftSavedAt), .int(try await nextVersion(connection)),
                .int(conversationId.rawValue), .int(userId.rawValue), SQLValue(next.clearedUpToSeq),
            ], logger: logger)
        try await announce(
            connection, notes,
            [Announcement(to: [userId], SettingsUpdated(conversationId: conversationId, settings: next).body)],
            at: now)
        return next
    }
}
