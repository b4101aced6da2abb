import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func searchMessages(_ query: MessageSearchQuery, for userId: UserID) async throws -> [Message] {
        try await pool.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = [SearchText.likePattern(query.phrase), userId.rawValue]
            // Terms of three characters or more go to the trigram index (all of them in one
            // MATCH); shorter ones are checked on the rows it, or the user's messages, yield.
            let indexed = query.terms.filter { $0.unicodeScalars.count >= SearchText.indexedTermLength }
            if !indexed.isEmpty {
                conditions.append("s.folded MATCH ?")
                arguments += [
                    indexed.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " ")
                ]
            }
            for term in query.terms where term.unicodeScalars.count < SearchText.indexedTermLength {
                conditions.append("s.folded LIKE ? ESCAPE '\\'")
                arguments += [SearchText.likePattern(term)]
            }
            let filters = SearchFilterSQL(query, row: "m")
            conditions += filters.conditions
            arguments += StatementArguments(filters.values.map(\.databaseValue))
            var after = ""
            if let cursor = filters.cursor {
                after = "WHERE " + cursor.condition
                arguments += StatementArguments(cursor.values.map(\.databaseValue))
            }
            arguments += [query.limit + 1]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    WITH readable (conversation_id, floor, ceiling) AS (
                        SELECT conversation_id, COALESCE(cleared_seq, 0), NULL FROM members WHERE user_id = ?2
                        UNION ALL
                        SELECT f.conversation_id, 0, f.read_up_to FROM former_members f
                        WHERE f.user_id = ?2 AND NOT EXISTS (
                            SELECT 1 FROM members x WHERE x.conversation_id = f.conversation_id AND x.user_id = f.user_id)
                    )
                    SELECT * FROM (
                        SELECT m.*, CASE WHEN s.folded LIKE ?1 ESCAPE '\\' THEN 0 ELSE 1 END AS tier
                        FROM readable r
                        JOIN messages m ON m.conversation_id = r.conversation_id
                        JOIN message_search s ON s.rowid = m.id
                        WHERE m.seq > r.floor AND (r.ceiling IS NULL OR m.seq <= r.ceiling)
                            AND NOT EXISTS (SELECT 1 FROM deleted_messages d
                                WHERE d.user_id = ?2 AND d.conversation_id = m.conversation_id AND d.seq = m.seq)
                            \(conditions.map { "AND " + $0 }.joined(separator: " "))
                    ) \(after)
                    ORDER BY tier, id DESC LIMIT ?
                    """,
                arguments: arguments)
            return try rows.map { try Message(row: $0) }
        }
    }

    public func indexSearchBacklog(limit: Int) async throws -> Int {
        try await pool.write { db in
            let below = try Int64.fetchOne(db, sql: "SELECT indexed_below FROM search_backlog WHERE id = 1") ?? 1
            guard below > 1 else { return 0 }
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, kind, content FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?",
                arguments: [below, limit])
            for row in rows {
                let content = try JSONText.decode(JSONValue.self, from: row["content"] as String)
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
        try db.cachedStatement(sql: "INSERT INTO message_search (rowid, folded) VALUES (?, ?)")
            .execute(arguments: [id.rawValue, folded])
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
