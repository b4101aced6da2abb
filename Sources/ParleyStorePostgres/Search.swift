import Logging
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func searchMessages(_ query: MessageSearchQuery, for userId: UserID) async throws -> [Message] {
        var values: [SQLValue] = [.text(SearchText.likePattern(query.phrase)), .int(userId.rawValue)]
        // The trigram index serves every LIKE of three characters or more; shorter ones are
        // checked on the rows the others, or the user's messages, yield.
        var conditions = query.terms.map { _ in "t.folded LIKE ?" }
        values += query.terms.map { .text(SearchText.likePattern($0)) }
        let filters = SearchFilterSQL(query, row: "m")
        conditions += filters.conditions
        values += filters.values.map(SQLValue.init)
        let numbered = SearchFilterSQL.numbered(conditions.map { "AND " + $0 }.joined(separator: " "), from: 3)
        var after = ""
        if let cursor = filters.cursor {
            after = "WHERE " + SearchFilterSQL.numbered(cursor.condition, from: values.count + 1)
            values += cursor.values.map(SQLValue.init)
        }
        let sql = """
            WITH readable (conversation_id, floor, ceiling) AS (
                SELECT conversation_id, COALESCE(cleared_seq, 0), NULL::BIGINT FROM members WHERE user_id = $2
                UNION ALL
                SELECT f.conversation_id, 0, f.read_up_to FROM former_members f
                WHERE f.user_id = $2 AND NOT EXISTS (
                    SELECT 1 FROM members x WHERE x.conversation_id = f.conversation_id AND x.user_id = f.user_id)
            )
            SELECT * FROM (
                SELECT m.*, CASE WHEN t.folded LIKE $1 THEN 0 ELSE 1 END AS tier
                FROM readable r
                JOIN messages m ON m.conversation_id = r.conversation_id
                JOIN message_text t ON t.message_id = m.id
                WHERE m.seq > r.floor AND (r.ceiling IS NULL OR m.seq <= r.ceiling)
                    AND NOT EXISTS (SELECT 1 FROM deleted_messages d
                        WHERE d.user_id = $2 AND d.conversation_id = m.conversation_id AND d.seq = m.seq)
                    \(numbered)
            ) found \(after)
            ORDER BY tier, id DESC LIMIT \(query.limit + 1)
            """
        let arguments = values
        return try await read { connection in
            try await connection.rows(sql, arguments, logger: self.logger).map { try Message(row: $0) }
        }
    }

    public func indexSearchBacklog(limit: Int) async throws -> Int {
        try await client.withTransaction(logger: logger) { connection in
            // Nodes take turns: the row lock makes a second node wait, then go on from where
            // the first stopped.
            let below =
                try await connection.scalar(
                    Int64.self, "SELECT indexed_below FROM search_backlog WHERE id = 1 FOR UPDATE", logger: self.logger)
                ?? 1
            guard below > 1 else { return 0 }
            // FOR SHARE: an edit or recall of these waits for this transaction, then writes its
            // own index row over this one; one committed before is what this reads.
            let rows = try await connection.rows(
                "SELECT id, kind, content FROM messages WHERE id < $1 ORDER BY id DESC LIMIT $2 FOR SHARE",
                [.int(below), .int(Int64(limit))], logger: self.logger)
            for row in rows {
                let content = try JSONText.decode(JSONValue.self, from: try row.text("content"))
                try await self.index(
                    connection, MessageID(try row.int("id")),
                    folded: SearchText.searchableText(
                        kind: MessageKind(rawValue: try row.text("kind")), content: content
                    )
                    .map(SearchText.fold))
            }
            try await connection.rows(
                "UPDATE search_backlog SET indexed_below = $1 WHERE id = 1",
                [.int(try rows.last?.int("id") ?? 1)], logger: self.logger)
            return rows.count
        }
    }

    /// Puts message `id`'s folded searchable text in the index, replacing what it held (nil:
    /// nothing to find, as after a recall).
    func index(_ connection: PostgresConnection, _ id: MessageID, folded: String?) async throws {
        if let folded {
            try await connection.rows(
                """
                INSERT INTO message_text (message_id, folded) VALUES ($1, $2)
                ON CONFLICT (message_id) DO UPDATE SET folded = EXCLUDED.folded
                """, [.int(id.rawValue), .text(folded)], logger: logger)
        } else {
            try await connection.rows(
                "DELETE FROM message_text WHERE message_id = $1", [.int(id.rawValue)], logger: logger)
        }
    }

    public func groupNames(of userId: UserID) async throws -> [GroupName] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT c.id, c.name, c.member_count FROM members m JOIN conversations c ON c.id = m.conversation_id
                WHERE m.user_id = $1 AND c.kind = 'group'
                """, [.int(userId.rawValue)], logger: self.logger
            ).map {
                GroupName(
                    id: ConversationID(try $0.int("id")), name: try $0["name"].decode(String?.self) ?? "",
                    memberCount: Int(try $0.int("member_count")))
            }
        }
    }

    public func groupMembers(of userId: UserID, matching terms: [String], limit: Int) async throws
        -> [GroupMemberName]
    {
        let patterns: [SQLValue] = terms.map { .text(SearchText.likePattern($0)) }
        func all(_ column: String, from first: Int) -> String {
            patterns.indices.map { "\(column) LIKE $\(first + $0)" }.joined(separator: " AND ")
        }
        let sql = """
            SELECT o.conversation_id AS found_in, u.* FROM members m
            JOIN conversations c ON c.id = m.conversation_id AND c.kind = 'group'
            JOIN members o ON o.conversation_id = m.conversation_id AND o.user_id <> m.user_id
            JOIN users u ON u.id = o.user_id
            WHERE m.user_id = $1
                AND ((\(all("u.nickname_folded", from: 2))) OR (\(all("u.username_key", from: 2 + patterns.count))))
            ORDER BY o.conversation_id, u.id LIMIT \(limit)
            """
        let values: [SQLValue] = [.int(userId.rawValue)] + patterns + patterns
        return try await read { connection in
            try await connection.rows(sql, values, logger: self.logger).map {
                GroupMemberName(
                    conversationId: ConversationID(try $0.int("found_in")), user: try UserRecord(row: $0).user)
            }
        }
    }
}

extension SQLValue {
    init(_ value: SearchFilterSQL.Value) {
        switch value {
        case .integer(let value): self = .int(value)
        case .text(let value): self = .text(value)
        }
    }
}
