import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func heartbeat(node: String, at now: Int64) async throws -> Bool {
        try await plain { connection in
            // xmax <> 0: the row was there and is updated, not inserted.
            try await connection.scalar(
                Bool.self,
                """
                INSERT INTO nodes (id, seen_at) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at
                RETURNING xmax <> 0
                """,
                [.text(node), .int(now)], logger: self.logger) ?? false
        }
    }

    public func updatePresence(node: String, connected: [UserID], disconnected: [UserID], at now: Int64) async throws
        -> [PresenceChange]
    {
        try await locked(presenceLock) { connection in
            let arrived = Self.idList(connected)
            let onlineBefore = try await self.online(connection, among: arrived)
            try await connection.rows(
                """
                INSERT INTO presence (user_id, node_id, since)
                SELECT unnest(string_to_array($1, ',')::bigint[]), $2, $3 ON CONFLICT DO NOTHING
                """,
                [.text(arrived), .text(node), .int(now)], logger: self.logger)
            let departed = try await connection.rows(
                """
                DELETE FROM presence WHERE node_id = $1 AND user_id = ANY(string_to_array($2, ',')::bigint[])
                RETURNING user_id
                """,
                [.text(node), .text(Self.idList(disconnected))], logger: self.logger
            ).map { (user: UserID(try $0.int("user_id")), at: now) }
            let stillOnline = try await self.online(connection, among: Self.idList(departed.map(\.user)))
            return try await self.record(
                connection,
                PresenceChange.turns(
                    arrived: connected, onlineBefore: onlineBefore, departed: departed, stillOnline: stillOnline,
                    at: now))
        }
    }

    public func sweepSilentNodes(before deadline: Int64) async throws -> [PresenceChange] {
        try await locked(presenceLock) { connection in
            let nodes = try await connection.rows(
                "DELETE FROM nodes WHERE seen_at < $1 RETURNING id, seen_at", [.int(deadline)], logger: self.logger)
            var lastHeard: [String: Int64] = [:]
            for node in nodes { lastHeard[try node.text("id")] = try node.int("seen_at") }
            var departed = try await connection.rows(
                """
                DELETE FROM presence WHERE node_id = ANY(string_to_array($1, ','))
                RETURNING user_id, node_id
                """,
                [.text(lastHeard.keys.joined(separator: ","))], logger: self.logger
            ).map { (user: UserID(try $0.int("user_id")), at: lastHeard[try $0.text("node_id")] ?? deadline) }
            departed += try await connection.rows(
                """
                DELETE FROM presence WHERE since < $1 AND node_id NOT IN (SELECT id FROM nodes)
                RETURNING user_id, since
                """,
                [.int(deadline)], logger: self.logger
            ).map { (user: UserID(try $0.int("user_id")), at: try $0.int("since")) }
            let stillOnline = try await self.online(connection, among: Self.idList(departed.map(\.user)))
            return try await self.record(
                connection,
                PresenceChange.turns(
                    arrived: [], onlineBefore: [], departed: departed, stillOnline: stillOnline, at: deadline))
        }
    }

    /// Those of `users` (an ``idList(_:)``) with a device recorded on some node.
    private func online(_ connection: PostgresConnection, among users: String) async throws -> Set<UserID> {
        Set(
            try await connection.rows(
                "SELECT DISTINCT user_id FROM presence WHERE user_id = ANY(string_to_array($1, ',')::bigint[])",
                [.text(users)], logger: logger
            ).map { UserID(try $0.int("user_id")) })
    }

    /// Notes when each user who went offline was last seen, in one statement; answers `changes`.
    private func record(_ connection: PostgresConnection, _ changes: [PresenceChange]) async throws
        -> [PresenceChange]
    {
        let offline = changes.filter { !$0.online }
        guard !offline.isEmpty else { return changes }
        try await connection.rows(
            """
            UPDATE users u SET last_seen_at = v.at
            FROM (SELECT unnest(string_to_array($1, ',')::bigint[]) AS id,
                unnest(string_to_array($2, ',')::bigint[]) AS at) v
            WHERE u.id = v.id
            """,
            [.text(Self.idList(offline.map(\.userId))), .text(offline.map { String($0.at) }.joined(separator: ","))],
            logger: logger)
        return changes
    }

    public func presence(of users: [UserID], for viewer: UserID) async throws -> [Presence] {
        let facts = try await read { connection in
            try await self.presenceFacts(
                connection, for: viewer, from: "users u WHERE u.id = ANY(string_to_array($2, ',')::bigint[])",
                [.text(Self.idList(users))])
        }
        let byId = Dictionary(facts.map { ($0.userId, $0) }, uniquingKeysWith: { first, _ in first })
        return users.compactMap { byId[$0]?.presence(for: viewer) }
    }

    public func friendsPresence(for viewer: UserID) async throws -> [Presence] {
        try await read { connection in
            try await self.presenceFacts(
                connection, for: viewer,
                from: "contacts f JOIN users u ON u.id = f.friend_id WHERE f.owner_id = $1 ORDER BY u.id")
        }.map { $0.presence(for: viewer) }
    }

    /// The facts of the users `from` (a FROM clause naming them `u`, where `$1` is the
    /// viewer and `$2`… are `values`) as `viewer` sees them.
    private func presenceFacts(
        _ connection: PostgresConnection, for viewer: UserID, from: String, _ values: [SQLValue] = []
    ) async throws -> [PresenceFacts] {
        try await connection.rows(
            """
            SELECT u.id, u.presence, u.last_seen_at,
                EXISTS (SELECT 1 FROM presence p WHERE p.user_id = u.id) AS online,
                EXISTS (SELECT 1 FROM contacts c WHERE c.owner_id = u.id AND c.friend_id = $1) AS friend,
                EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = u.id AND b.blocked_id = $1)
                    OR (b.blocker_id = $1 AND b.blocked_id = u.id)) AS blocked
            FROM \(from)
            """,
            [.int(viewer.rawValue)] + values, logger: logger
        ).map {
            PresenceFacts(
                userId: UserID(try $0.int("id")), visibility: PresenceVisibility(rawValue: try $0.text("presence")),
                online: try $0.bool("online"), lastSeenAt: try $0.optionalInt("last_seen_at"),
                isFriend: try $0.bool("friend"), blockedEitherWay: try $0.bool("blocked"))
        }
    }

    public func presenceWatchers(of userId: UserID) async throws -> [UserID] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT c.friend_id FROM contacts c JOIN users u ON u.id = c.owner_id
                WHERE c.owner_id = $1 AND u.presence <> 'nobody' ORDER BY c.friend_id
                """,
                [.int(userId.rawValue)], logger: self.logger
            ).map { UserID(try $0.int("friend_id")) }
        }
    }
}
