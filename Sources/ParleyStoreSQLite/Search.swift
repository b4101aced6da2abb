import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func searchMessages(_ query: MessageSearchQuery, for userId: UserID) async throws -> [Message] {
        try await pool.read { db in
            var found: [Message] = []
            for pass in query.passes where found.count <= query.limit {
                found += try Self.search(db, query, pass, for: userId, limit: query.limit + 1 - found.count)
            }
            return found
        }
    }

    /// The conversations user `?1` may search, each with the seqs they may see (above
    /// `floor`, up to `ceiling` when they left): what history shows them.
    private static let readable = """
        WITH readable (conversation_id, floor, ceiling) AS MATERIALIZED (
            SELECT conversation_id, COALESCE(cleared_seq, 0), NULL FROM members WHERE user_id = ?1
            UNION ALL
            SELECT f.conversation_id, 0, f.read_up_to FROM former_members f
            WHERE f.user_id = ?1 AND NOT EXISTS (
                SELECT 1 FROM members x WHERE x.conversation_id = f.conversation_id AND x.user_id = f.user_id)
        )
        """

    /// Message `m` is not one user `?1` deleted for themselves.
    private static let notDeleted = """
        NOT EXISTS (SELECT 1 FROM deleted_messages d
            WHERE d.user_id = ?1 AND d.conversation_id = m.conversation_id AND d.seq = m.seq)
        """

    /// Up to `limit` messages of one pass, newest first. When the pass holds a string of
    /// three characters or more, the trigram index yields its matches newest first (all
    /// of them in one `MATCH`) and the reading stops at `limit`. Otherwise no index helps:
    /// each conversation the user may read is read newest first until it gave `limit`
    /// matches, and the newest `limit` of those are the answer.
    private static func search(
        _ db: Database, _ query: MessageSearchQuery, _ pass: SearchPass, for userId: UserID, limit: Int
    ) throws -> [Message] {
        let (indexed, short) = pass.indexedAndShort
        var filters = SearchFilterSQL(query, row: "m")
        // The index can start at the cursor (`rowid < ?`); a scan of messages starts by id.
        filters.add(pass, likes: short, folded: "s.folded", id: indexed.isEmpty ? "m.id" : "s.rowid")
        let conditions = filters.conditions.map { " AND " + $0 }.joined()
        let values = StatementArguments(filters.values.map(\.databaseValue))
        if !indexed.isEmpty {
            let match = indexed.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            // CROSS JOIN keeps the index outermost, so its newest-first order is the answer's.
            let sql = """
                \(readable)
                SELECT m.* FROM message_search s CROSS JOIN messages m CROSS JOIN readable r
                WHERE s.folded MATCH ?2 AND m.id = s.rowid AND m.conversation_id = r.conversation_id
                    AND m.seq > r.floor AND (r.ceiling IS NULL OR m.seq <= r.ceiling) AND \(notDeleted)\(conditions)
                ORDER BY s.rowid DESC LIMIT ?
                """
            let arguments: StatementArguments = [userId.rawValue, match.joined(separator: " ")] + values + [limit]
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { try Message(row: $0) }
        }
        var conversations = try Row.fetchAll(
            db, sql: readable + " SELECT conversation_id, floor, ceiling FROM readable", arguments: [userId.rawValue])
        if let only = query.conversationId {
            conversations.removeAll { ConversationID($0["conversation_id"]) != only }
        }
        // The bounds are the statement's own values, so that the (conversation_id, seq) index
        // yields the conversation newest first with no sort.
        let statement = try db.cachedStatement(
            sql: """
                SELECT m.* FROM messages m CROSS JOIN message_search s
                WHERE m.conversation_id = ?2 AND m.seq > ?3 AND m.seq <= ?4 AND \(notDeleted)
                    AND s.rowid = m.id\(conditions)
                ORDER BY m.seq DESC LIMIT ?
                """)
        var found: [Message] = []
        for conversation in conversations {
            let bounds: StatementArguments = [
                conversation["conversation_id"] as Int64, conversation["floor"] as Int64,
                conversation["ceiling"] as Int64? ?? Int64.max,
            ]
            let arguments: StatementArguments = [userId.rawValue] + bounds + values + [limit]
            found += try Row.fetchAll(statement, arguments: arguments).map { try Message(row: $0) }
        }
        return Array(found.sorted { $0.id.rawValue > $1.id.rawValue }.prefix(limit))
    }

    public func indexSearchBacklog(limit: Int) async throws -> Int {
        try await write { db in
            let below = try Int64.fetchOne(db, sql: "SELECT indexed_below FROM search_backlog WHERE id = 1") ?? 1
            guard below > 1 else { return 0 }
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, kind, content FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?",
                arguments: [below, limit])
            for row in rows {
                let content = try JSONText.decodeValue(from: row["content"])
                try Self.index(
                    db, MessageID(row["id"]),
                    folded: SearchText.searchableText(kind: MessageKind(rawValue: row["kind"]), content: content)
                        .map(SearchText.fold))
            }
            try db.execute(
                sql: "UPDATE search_backlog SET indexed_below = ? WHERE id = 1",
                arguments: [rows.last.map { $0["id"] as Int64 } ?? 1])
            return rows.count
        }
    }

    public func groupNames(of userId: UserID) async throws -> [GroupName] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.id, c.name, c.member_count FROM members m JOIN conversations c ON c.id = m.conversation_id
                    WHERE m.user_id = ? AND c.kind = 'group'
                    """,
                arguments: [userId.rawValue]
            ).map { GroupName(id: ConversationID($0["id"]), name: $0["name"] ?? "", memberCount: $0["member_count"]) }
        }
    }

    public func groupMembers(of userId: UserID, matching terms: [String], limit: Int) async throws
        -> [GroupMemberName]
    {
        let patterns = terms.map(SearchText.likePattern)
        func all(_ column: String) -> String {
            patterns.map { _ in "\(column) LIKE ? ESCAPE '\\'" }.joined(separator: " AND ")
        }
        let sql = """
            SELECT o.conversation_id AS found_in, u.* FROM members m
            JOIN conversations c ON c.id = m.conversation_id AND c.kind = 'group'
            JOIN members o ON o.conversation_id = m.conversation_id AND o.user_id <> m.user_id
            JOIN users u ON u.id = o.user_id
            WHERE m.user_id = ? AND ((\(all("u.nickname_folded"))) OR (\(all("u.username_key"))))
            ORDER BY o.conversation_id, u.id LIMIT ?
            """
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: sql,
                arguments: [userId.rawValue] + StatementArguments(patterns + patterns) + [limit]
            ).map { GroupMemberName(conversationId: ConversationID($0["found_in"]), user: UserRecord(row: $0).user) }
        }
    }

    /// Puts message `id`'s folded searchable text in the index, replacing what it held (nil:
    /// nothing to find, as after a recall).
    static func index(_ db: Database, _ id: MessageID, folded: String?) throws {
        try db.cachedStatement(sql: "DELETE FROM message_search WHERE rowid = ?").execute(arguments: [id.rawValue])
        if let folded { try indexNew(db, id, folded: folded) }
    }

    /// Indexes a message stored just now.
    static func indexNew(_ db: Database, _ id: MessageID, folded: String) throws {
        try db.run("INSERT INTO message_search (rowid, folded) VALUES (?, ?)", [id.rawValue, folded])
    }
}

extension SearchFilterSQL.Value {
    /// The value for GRDB.
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }
}
