import GRDB
import ParleyCore

/// The conversation list and each conversation's read watermarks.
extension ClientStore {
    /// Saves a summary (see below); returns the messages it hides (cleared by the user).
    @discardableResult
    package func saveConversation(_ conversation: ConversationSummary) throws -> StoreChanges {
        try writer.write { db in
            try Self.saveConversation(db, conversation, eventsCovered: try Self.syncedEventSeq(db))
        }
    }

    /// Saves a summary read after every event up to `eventsCovered` had committed. Its name and
    /// group profile replace the stored ones unless a `conversation.updated` event beyond that
    /// set them: those may be newer than the summary's (a later one arrives as an event too).
    /// The user's settings follow the same rule with `settings.updated` events.
    /// The server summarises only conversations the user is in, so the summary also ends a
    /// removal that it covers. Its count of unread mentions replaces the one held, unless
    /// this device has read everything since.
    static func saveConversation(_ db: Database, _ summary: ConversationSummary, eventsCovered: Int64) throws
        -> StoreChanges
    {
        try db.execute(
            sql: """
                INSERT INTO conversations (id, kind, name, peer_id, member_count, max_seq, read_seq, others_read_seq,
                    last_message, created_at, last_activity_at, group_profile, settings, others_delivered_seq,
                    unread_mentions)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = CASE WHEN profile_seq <= ? THEN excluded.name ELSE name END,
                    group_profile = CASE WHEN profile_seq <= ? THEN excluded.group_profile ELSE group_profile END,
                    settings = CASE WHEN settings_seq <= ? THEN excluded.settings ELSE settings END,
                    removal = CASE WHEN membership_seq <= ? THEN NULL ELSE removal END,
                    history_due = CASE WHEN membership_seq <= ? THEN NULL ELSE history_due END,
                    member_count = excluded.member_count,
                    max_seq = MAX(max_seq, excluded.max_seq), read_seq = MAX(read_seq, excluded.read_seq),
                    others_read_seq = MAX(others_read_seq, excluded.others_read_seq),
                    others_delivered_seq = MAX(others_delivered_seq, excluded.others_delivered_seq),
                    unread_mentions = CASE WHEN read_seq >= MAX(max_seq, excluded.max_seq) THEN 0
                        ELSE excluded.unread_mentions END,
                    last_message = CASE WHEN excluded.max_seq >= max_seq THEN excluded.last_message ELSE last_message END,
                    last_activity_at = MAX(last_activity_at, excluded.last_activity_at)
                """,
            arguments: [
                summary.id.rawValue, summary.kind.rawValue, summary.name, summary.peerId?.rawValue, summary.memberCount,
                summary.maxSeq, summary.readSeq, summary.othersReadSeq, try summary.lastMessage.map(JSONText.encode),
                summary.createdAt, summary.lastActivityAt, try summary.group.map(JSONText.encode),
                try JSONText.encode(summary.settings), summary.othersDeliveredSeq, summary.unreadMentions,
                eventsCovered, eventsCovered, eventsCovered, eventsCovered, eventsCovered,
            ])
        try reconcile(db, summary.id)
        return try hideCleared(db, summary.id)
    }

    /// A message pushed before its conversation was known may be newer than the summary just
    /// saved (read before it committed): the conversation takes the newest message held.
    private static func reconcile(_ db: Database, _ id: ConversationID) throws {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT m.* FROM messages m JOIN conversations c ON c.id = m.conversation_id
                    WHERE m.conversation_id = ? AND m.seq > c.max_seq AND m.hidden = 0 ORDER BY m.seq DESC LIMIT 1
                    """,
                arguments: [id.rawValue])
        else { return }
        let newest = try message(row)
        try db.execute(
            sql:
                "UPDATE conversations SET max_seq = ?, last_message = ?, last_activity_at = MAX(last_activity_at, ?) WHERE id = ?",
            arguments: [newest.seq, try JSONText.encode(newest), newest.sentAt, id.rawValue])
    }

    /// The conversations, most recently active first.
    public func conversations() throws -> [ConversationSummary] {
        try writer.read { db in try Self.fetchConversations(db) }
    }

    public func conversation(_ id: ConversationID) throws -> ConversationSummary? {
        try writer.read { db in try Self.fetchConversations(db, where: "id = ?", [id.rawValue]).first }
    }

    /// The direct conversation with the user called `username` (in any case), if this device
    /// has it; usernames never change, so no server is needed to find it again.
    public func directConversation(withUsername username: String) throws -> ConversationSummary? {
        try writer.read { db in
            try Self.fetchConversations(
                db, where: "kind = ? AND peer_id IN (SELECT id FROM users WHERE lower(username) = ?)",
                [ConversationKind.direct.rawValue, AccountRules.canonicalUsername(username)]
            ).first
        }
    }

    /// The conversation list as it changes: the current list first, then one per change.
    public func observeConversations() -> AsyncValueObservation<[ConversationSummary]> {
        ValueObservation.tracking { db in try Self.fetchConversations(db) }.values(in: writer)
    }

    /// The conversation list as a list view shows it (``ConversationList/arranged(_:)``):
    /// pinned first, hidden ones left out.
    public func listedConversations() throws -> [ConversationSummary] {
        try writer.read { db in ConversationList.arranged(try Self.fetchConversations(db)) }
    }

    /// ``listedConversations()`` now, then again whenever it changes.
    public func observeListedConversations() -> AsyncValueObservation<[ConversationSummary]> {
        ValueObservation.tracking { db in ConversationList.arranged(try Self.fetchConversations(db)) }
            .removeDuplicates().values(in: writer)
    }

    /// The user's own settings for a conversation (the defaults when it is not held).
    public func settings(of id: ConversationID) throws -> ConversationSettings {
        try conversation(id)?.settings ?? ConversationSettings()
    }

    /// The highest seq another member has read, for "read" ticks on own messages.
    public func othersReadSeq(_ conversationId: ConversationID) throws -> Int64 {
        try writer.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT others_read_seq FROM conversations WHERE id = ?", arguments: [conversationId.rawValue])
                ?? 0
        }
    }

    package func recordOthersRead(_ receipt: ReadReceipt) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE conversations SET others_read_seq = MAX(others_read_seq, ?) WHERE id = ?",
                arguments: [receipt.seq, receipt.conversationId.rawValue])
            try db.execute(
                sql: "UPDATE group_members SET read_seq = MAX(read_seq, ?) WHERE conversation_id = ? AND user_id = ?",
                arguments: [receipt.seq, receipt.conversationId.rawValue, receipt.userId.rawValue])
        }
    }

    /// Whether the user left or was removed from a conversation: it stays on the device,
    /// read-only, with its history up to the removal (``ConversationRemoved/lastSeq``).
    public func hasLeft(_ id: ConversationID) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT removal IS NOT NULL FROM conversations WHERE id = ?", arguments: [id.rawValue])
                ?? false
        }
    }

    /// In a conversation the user left, the seq up to which its history is still to be
    /// fetched (the removal's `lastSeq`); nil once it was, and in any other conversation.
    package func historyDue(_ id: ConversationID) throws -> Int64? {
        try writer.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT history_due FROM conversations WHERE id = ? AND removal IS NOT NULL",
                arguments: [id.rawValue])
        }
    }

    /// The history of a conversation the user left was fetched up to `seq`: it is not asked
    /// for again (unless a newer removal, after a return, makes more of it due).
    package func settleHistoryDue(_ id: ConversationID, upTo seq: Int64) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE conversations SET history_due = NULL WHERE id = ? AND history_due = ?",
                arguments: [id.rawValue, seq])
        }
    }

    package func markReadLocally(_ conversationId: ConversationID, upTo seq: Int64) throws {
        try writer.write { db in try Self.markRead(db, conversationId, upTo: seq) }
    }

    /// Moves the read watermark; once everything is read, no mention is unread.
    static func markRead(_ db: Database, _ conversationId: ConversationID, upTo seq: Int64) throws {
        try db.execute(
            sql: """
                UPDATE conversations SET read_seq = MAX(read_seq, ?),
                    unread_mentions = CASE WHEN MAX(read_seq, ?) >= max_seq THEN 0 ELSE unread_mentions END
                WHERE id = ?
                """, arguments: [seq, seq, conversationId.rawValue])
    }

    /// The highest seq another member has received on one of their devices, for "delivered"
    /// ticks on own messages (read implies delivered).
    public func othersDeliveredSeq(_ conversationId: ConversationID) throws -> Int64 {
        try writer.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT MAX(others_delivered_seq, others_read_seq) FROM conversations WHERE id = ?",
                arguments: [conversationId.rawValue]) ?? 0
        }
    }

    package func recordOthersDelivered(_ receipt: ReadReceipt) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE conversations SET others_delivered_seq = MAX(others_delivered_seq, ?) WHERE id = ?",
                arguments: [receipt.seq, receipt.conversationId.rawValue])
        }
    }

    private static func fetchConversations(
        _ db: Database, where condition: String = "1", _ arguments: StatementArguments = []
    ) throws -> [ConversationSummary] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM conversations WHERE \(condition) ORDER BY last_activity_at DESC, id DESC",
            arguments: arguments
        ).map { row in
            ConversationSummary(
                id: ConversationID(row["id"]), kind: ConversationKind(rawValue: row["kind"]) ?? .group,
                name: row["name"],
                peerId: (row["peer_id"] as Int64?).map { UserID($0) }, memberCount: row["member_count"],
                maxSeq: row["max_seq"], readSeq: row["read_seq"], othersReadSeq: row["others_read_seq"],
                othersDeliveredSeq: row["others_delivered_seq"], unreadMentions: row["unread_mentions"],
                lastMessage: try (row["last_message"] as String?).map { try JSONText.decode(Message.self, from: $0) },
                createdAt: row["created_at"], lastActivityAt: row["last_activity_at"],
                group: try (row["group_profile"] as String?).map { try JSONText.decode(GroupProfile.self, from: $0) },
                settings: try (row["settings"] as String?).map {
                    try JSONText.decode(ConversationSettings.self, from: $0)
                }
                    ?? ConversationSettings())
        }
    }
}
