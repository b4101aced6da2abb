import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func openDirectConversation(between userId: UserID, and peerId: UserID, at now: Int64) async throws
        -> ConversationSummary
    {
        try await write { db in
            let id = try self.directConversation(db, between: userId, and: peerId, at: now).id
            return try Self.summary(db, id, for: userId)
        }
    }

    /// The id of the direct conversation between two users, created with its members and
    /// `conversation.added` events if it does not exist; `opened` says it was, after
    /// checking that `userId` may message `peerId`.
    func directConversation(_ db: Database, between userId: UserID, and peerId: UserID, at now: Int64) throws
        -> (id: ConversationID, opened: Bool)
    {
        try ConversationRules.checkDirectPair(userId, peerId)
        let key = DirectKey.make(userId, peerId)
        if let id = try Self.conversationID(db, directKey: key) { return (id, false) }
        try ConversationRules.requireExisting([peerId], existing: try Self.existingUsers(db, [peerId]))
        try checkCanMessage(db, from: userId, to: peerId)
        let version = try nextVersion(db)
        try db.run(
            """
            INSERT INTO conversations (kind, direct_key, member_count, version, members_version, created_at,
                last_activity_at)
            VALUES ('direct', ?, 2, ?, ?, ?, ?)
            """, [key, version, version, now, now])
        let id = ConversationID(db.lastInsertedRowID)
        try insertMembers(db, [(userId, .member), (peerId, .member)], into: id, version: version, at: now)
        try announce(db, ConversationRules.joinAnnouncements([userId, peerId], to: id), at: now)
        return (id, true)
    }

    public func createGroup(name: String, ownerId: UserID, memberIds: [UserID], memberLimit: Int, at now: Int64)
        async throws -> ConversationSummary
    {
        try await write { db in
            let others = ConversationRules.groupMembers(owner: ownerId, requested: memberIds)
            try ConversationRules.requireExisting(others, existing: try Self.existingUsers(db, others))
            try ContactRules.checkCanAdd(blocked: try Self.blocked(db, between: ownerId, and: others))
            try ConversationRules.checkCapacity(others.count + 1, limit: memberLimit)
            let version = try self.nextVersion(db)
            try db.execute(
                sql: """
                    INSERT INTO conversations (kind, name, member_count, member_limit, owner_id, version,
                        members_version, created_at, last_activity_at)
                    VALUES ('group', ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [name, others.count + 1, memberLimit, ownerId.rawValue, version, version, now, now])
            let id = ConversationID(db.lastInsertedRowID)
            try self.insertMembers(
                db, [(ownerId, .owner)] + others.map { ($0, .member) }, into: id, version: version, at: now)
            try self.announce(db, ConversationRules.joinAnnouncements([ownerId] + others, to: id), at: now)
            return try Self.summary(db, id, for: ownerId)
        }
    }

    public func conversation(_ id: ConversationID, for userId: UserID) async throws -> ConversationDetail {
        try await pool.read { db in
            let summary = try Self.summary(db, id, for: userId)
            let members = try Row.decodeAll(
                db, sql: "SELECT * FROM members WHERE conversation_id = ? ORDER BY joined_at, user_id",
                arguments: [id.rawValue], Member.init(row:))
            return ConversationDetail(conversation: summary, members: members)
        }
    }

    public func conversations(of userId: UserID, after cursor: ConversationListCursor?, limit: Int) async throws
        -> [ConversationSummary]
    {
        try await pool.read { db in
            try Self.summaries(
                db, for: userId, where: cursor == nil ? "TRUE" : "(c.last_activity_at, c.id) < (?, ?)",
                orderBy: "c.last_activity_at DESC, c.id DESC", limit: limit,
                arguments: StatementArguments(cursor.map { [$0.lastActivityAt, $0.conversationId.rawValue] } ?? []))
        }
    }

    // MARK: Helpers shared by the conversation, message and sync queries

    /// The members of a conversation, after checking that `userId` is one of them.
    static func memberIDs(_ db: Database, of conversationId: ConversationID, requiring userId: UserID) throws
        -> [UserID]
    {
        let members = try memberList(db, conversationId)
        try ConversationRules.requireMember(userId, of: members, in: conversationId)
        return members
    }

    static func memberList(_ db: Database, _ conversationId: ConversationID) throws -> [UserID] {
        try Int64.fetchAll(
            db.cachedStatement(sql: "SELECT user_id FROM members WHERE conversation_id = ?"),
            arguments: [conversationId.rawValue]
        ).map { UserID($0) }
    }

    /// Summaries of `userId`'s conversations matching `condition` (over `c` and `m`).
    static func summaries(
        _ db: Database, for userId: UserID, where condition: String, orderBy order: String, limit: Int,
        arguments: StatementArguments
    ) throws -> [ConversationSummary] {
        try summaryRows(db, for: userId, where: condition, orderBy: order, limit: limit, arguments: arguments) {
            try ConversationSummary(row: $0, layout: $1, viewer: userId)
        }
    }

    /// The rows behind ``summaries(_:for:where:orderBy:limit:arguments:)``, with each one's
    /// `change_version`, each turned into a value by `decode` with where its columns are
    /// (``Row/decodeAll(_:sql:arguments:layout:_:)``: decoding copied summary rows was most of
    /// a sync's cost, and then looking their columns up by name 7 %). `condition` and `order`
    /// come from a fixed set of callers, so the statements stay few. Unread mentions are
    /// counted only where something is unread (a `COUNT(DISTINCT)` builds a temporary table
    /// per row: it was almost half of SQLite's time in a sync of read conversations).
    static func summaryRows<Value>(
        _ db: Database, for userId: UserID, where condition: String, orderBy order: String, limit: Int,
        arguments: StatementArguments, _ decode: (Row, ConversationSummary.Layout) throws -> Value
    ) throws -> [Value] {
        try Row.decodeAll(
            db,
            sql: """
                SELECT c.*, m.read_seq, m.pinned_at, m.muted, m.hidden_seq, m.draft, m.draft_at, m.cleared_seq,
                    MAX(c.version, m.version) AS change_version,
                    (SELECT COALESCE(MAX(o.read_seq), 0) FROM members o
                        WHERE o.conversation_id = c.id AND o.user_id != m.user_id) AS others_read_seq,
                    (SELECT COALESCE(MAX(MAX(o.delivered_seq, o.read_seq)), 0) FROM members o
                        WHERE o.conversation_id = c.id AND o.user_id != m.user_id) AS others_delivered_seq,
                    CASE WHEN c.max_seq > MAX(m.read_seq, COALESCE(m.cleared_seq, 0)) THEN
                        (SELECT COUNT(DISTINCT x.seq) FROM mentions x
                            WHERE x.conversation_id = c.id AND x.user_id IN (m.user_id, 0) AND x.sender_id != m.user_id
                            AND x.seq > MAX(m.read_seq, COALESCE(m.cleared_seq, 0)))
                    ELSE 0 END AS unread_mentions,
                    lm.id AS lm_id, lm.seq AS lm_seq, lm.sender_id AS lm_sender_id,
                    lm.client_msg_id AS lm_client_msg_id, lm.kind AS lm_kind, lm.content AS lm_content,
                    lm.sent_at AS lm_sent_at, lm.quote AS lm_quote, lm.forwarded AS lm_forwarded,
                    lm.edited_at AS lm_edited_at,
                    EXISTS (SELECT 1 FROM deleted_messages d
                        WHERE d.user_id = m.user_id AND d.conversation_id = c.id AND d.seq = c.max_seq) AS lm_deleted
                FROM members m
                JOIN conversations c ON c.id = m.conversation_id
                LEFT JOIN messages lm ON lm.conversation_id = c.id AND lm.seq = c.max_seq
                WHERE m.user_id = ? AND (\(condition))
                ORDER BY \(order)
                LIMIT ?
                """,
            arguments: [userId.rawValue] + arguments + [limit], layout: ConversationSummary.Layout.init, decode)
    }

    static func summary(_ db: Database, _ id: ConversationID, for userId: UserID) throws -> ConversationSummary {
        guard
            let summary = try summaries(
                db, for: userId, where: "c.id = ?", orderBy: "c.id", limit: 1, arguments: [id.rawValue]
            ).first
        else {
            let exists = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM conversations WHERE id = ?", arguments: [id.rawValue])
            throw ConversationRules.noSummary(of: id, exists: exists == true)
        }
        return summary
    }

    /// Those of `ids` that are users.
    static func existingUsers(_ db: Database, _ ids: [UserID]) throws -> Set<UserID> {
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM users WHERE id = ?")
        return Set(try ids.filter { try Bool.fetchOne(exists, arguments: [$0.rawValue]) != nil })
    }

    static func conversationID(_ db: Database, directKey key: String) throws -> ConversationID? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM conversations WHERE direct_key = ?"), arguments: [key]
        )
        .map { ConversationID($0) }
    }

    func insertMembers(
        _ db: Database, _ members: [(UserID, MemberRole)], into id: ConversationID, version: Int64, at now: Int64
    ) throws {
        let insert = try db.cachedStatement(
            sql: "INSERT INTO members (conversation_id, user_id, role, version, joined_at) VALUES (?, ?, ?, ?, ?)")
        for (userId, role) in members {
            try insert.execute(arguments: [id.rawValue, userId.rawValue, role.rawValue, version, now])
        }
    }
}
