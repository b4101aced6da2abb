import Logging
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func searchMessages(_ query: MessageSearchQuery, for userId: UserID) async throws -> [Message] {
        try await read { connection in
            var found: [Message] = []
            for pass in query.passes where found.count <= query.limit {
                found += try await self.search(
                    connection, query, pass, for: userId, limit: query.limit + 1 - found.count)
            }
            return found
        }
    }

    /// The conversations user `$1` may search, each with the seqs they may see (above
    /// `floor`, up to `ceiling` when they left): what history shows them.
    private static let readable = """
        WITH readable (conversation_id, floor, ceiling) AS (
            SELECT conversation_id, COALESCE(cleared_seq, 0), NULL::BIGINT FROM members WHERE user_id = $1
            UNION ALL
            SELECT f.conversation_id, 0, f.read_up_to FROM former_members f
            WHERE f.user_id = $1 AND NOT EXISTS (
                SELECT 1 FROM members x WHERE x.conversation_id = f.conversation_id AND x.user_id = f.user_id)
        )
        """

    /// Message `m` is one user `$1` may see in readable conversation `r`.
    private static let visible = """
        m.conversation_id = r.conversation_id AND m.seq > r.floor AND (r.ceiling IS NULL OR m.seq <= r.ceiling)
        AND NOT EXISTS (SELECT 1 FROM deleted_messages d
            WHERE d.user_id = $1 AND d.conversation_id = m.conversation_id AND d.seq = m.seq)
        """

    /// Up to `limit` messages of one pass, newest first. When the pass holds a string of
    /// three characters or more, the planner chooses between the trigram index (few
    /// matches) and reading messages newest first until `limit` match (many). Otherwise no
    /// index helps: each conversation the user may read is read newest first until it gave
    /// `limit` matches, and the newest `limit` of those are the answer.
    private func search(
        _ connection: PostgresConnection, _ query: MessageSearchQuery, _ pass: SearchPass, for userId: UserID,
        limit: Int
    ) async throws -> [Message] {
        var filters = SearchFilterSQL(query, row: "m")
        filters.add(pass, likes: pass.holds, folded: "t.folded", id: "m.id")
        let conditions = SearchFilterSQL.numbered(filters.conditions.map { " AND " + $0 }.joined(), from: 2)
        var values: [SQLValue] = [.int(userId.rawValue)] + filters.values.map(SQLValue.init)
        let sql: String
        if !pass.indexedAndShort.indexed.isEmpty {
            sql = """
                \(Self.readable)
                SELECT m.* FROM readable r JOIN messages m ON \(Self.visible)
                JOIN message_text t ON t.message_id = m.id
                WHERE TRUE\(conditions)
                ORDER BY m.id DESC LIMIT \(limit)
                """
        } else {
            var only = ""
            if let conversationId = query.conversationId {
                values.append(.int(conversationId.rawValue))
                only = "WHERE r.conversation_id = $\(values.count)"
            }
            sql = """
                \(Self.readable)
                SELECT found.* FROM readable r CROSS JOIN LATERAL (
                    SELECT m.* FROM messages m JOIN message_text t ON t.message_id = m.id
                    WHERE \(Self.visible)\(conditions)
                    ORDER BY m.seq DESC LIMIT \(limit)
                ) found \(only)
                ORDER BY found.id DESC LIMIT \(limit)
                """
        }
        // Planned for each pattern: which index pays depends on it.
        return try await connection.rows(sql, values, prepared: false, logger: logger)
            .decodeAll(layout: { Message.Layout($0) }, { try Message(row: $0, layout: $1) })
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
                let content = try JSONText.decodeValue(from: try row.text("content"))
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
            try await connection.rows(sql, values, prepared: false, logger: self.logger).map {
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
