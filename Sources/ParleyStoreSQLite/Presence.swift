import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func heartbeat(node: String, at now: Int64) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE nodes SET seen_at = ? WHERE id = ?", arguments: [now, node])
            guard db.changesCount == 0 else { return true }
            try db.execute(sql: "INSERT INTO nodes (id, seen_at) VALUES (?, ?)", arguments: [node, now])
            return false
        }
    }

    public func updatePresence(node: String, connected: [UserID], disconnected: [UserID], at now: Int64) async throws
        -> [PresenceChange]
    {
        try await write { db in
            let arrived = try JSONText.encode(connected.map(\.rawValue))
            let onlineBefore = try Self.online(db, among: arrived)
            try db.execute(
                sql: "INSERT OR IGNORE INTO presence (user_id, node_id, since) SELECT value, ?, ? FROM json_each(?)",
                arguments: [node, now, arrived])
            let departed = try Int64.fetchAll(
                db,
                sql:
                    "DELETE FROM presence WHERE node_id = ? AND user_id IN (SELECT value FROM json_each(?)) RETURNING user_id",
                arguments: [node, try JSONText.encode(disconnected.map(\.rawValue))]
            ).map { (user: UserID($0), at: now) }
            return try Self.record(
                db,
                PresenceChange.turns(
                    arrived: connected, onlineBefore: onlineBefore, departed: departed,
                    stillOnline: try Self.online(db, among: try JSONText.encode(departed.map(\.user.rawValue))), at: now
                ))
        }
    }

    public func sweepSilentNodes(before deadline: Int64) async throws -> [PresenceChange] {
        try await write { db in
            let nodes = try Row.fetchAll(
                db, sql: "DELETE FROM nodes WHERE seen_at < ? RETURNING id, seen_at", arguments: [deadline])
            let lastHeard = Dictionary(uniqueKeysWithValues: nodes.map { ($0["id"] as String, $0["seen_at"] as Int64) })
            var departed = try Row.fetchAll(
                db,
                sql:
                    "DELETE FROM presence WHERE node_id IN (SELECT value FROM json_each(?)) RETURNING user_id, node_id",
                arguments: [try JSONText.encode(Array(lastHeard.keys))]
            ).map { (user: UserID($0["user_id"]), at: lastHeard[$0["node_id"]] ?? deadline) }
            departed += try Row.fetchAll(
                db,
                sql: """
                    DELETE FROM presence WHERE since < ? AND node_id NOT IN (SELECT id FROM nodes)
                    RETURNING user_id, since
                    """,
                arguments: [deadline]
            ).map { (user: UserID($0["user_id"]), at: $0["since"]) }
            return try Self.record(
                db,
                PresenceChange.turns(
                    arrived: [], onlineBefore: [], departed: departed,
                    stillOnline: try Self.online(db, among: try JSONText.encode(departed.map(\.user.rawValue))),
                    at: deadline))
        }
    }

    /// Those of the users in the JSON array `users` with a device recorded on some node.
    private static func online(_ db: Database, among users: String) throws -> Set<UserID> {
        Set(
            try Int64.fetchAll(
                db, sql: "SELECT DISTINCT user_id FROM presence WHERE user_id IN (SELECT value FROM json_each(?))",
                arguments: [users]
            ).map { UserID($0) })
    }

    /// Notes when each user who went offline was last seen; answers `changes`.
    private static func record(_ db: Database, _ changes: [PresenceChange]) throws -> [PresenceChange] {
        let statement = try db.cachedStatement(sql: "UPDATE users SET last_seen_at = ? WHERE id = ?")
        for change in changes where !change.online {
            try statement.execute(arguments: [change.at, change.userId.rawValue])
        }
        return changes
    }

    public func presence(of users: [UserID], for viewer: UserID) async throws -> [Presence] {
        let facts = try await pool.read { db in
            try Self.presenceFacts(
                db, for: viewer, from: "users u WHERE u.id IN (SELECT value FROM json_each(?2))",
                arguments: [try JSONText.encode(users.map(\.rawValue))])
        }
        let byId = Dictionary(facts.map { ($0.userId, $0) }, uniquingKeysWith: { first, _ in first })
        return users.compactMap { byId[$0]?.presence(for: viewer) }
    }

    public func friendsPresence(for viewer: UserID) async throws -> [Presence] {
        try await pool.read { db in
            try Self.presenceFacts(
                db, for: viewer,
                from: "contacts f JOIN users u ON u.id = f.friend_id WHERE f.owner_id = ?1 ORDER BY u.id")
        }.map { $0.presence(for: viewer) }
    }

    /// The facts of the users `from` (a FROM clause naming them `u`, where `?1` is the
    /// viewer and `?2`… are `arguments`) as `viewer` sees them.
    private static func presenceFacts(
        _ db: Database, for viewer: UserID, from: String, arguments: StatementArguments = []
    ) throws -> [PresenceFacts] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT u.id, u.presence, u.last_seen_at,
                    EXISTS (SELECT 1 FROM presence p WHERE p.user_id = u.id) AS online,
                    EXISTS (SELECT 1 FROM contacts c WHERE c.owner_id = u.id AND c.friend_id = ?1) AS friend,
                    EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = u.id AND b.blocked_id = ?1)
                        OR (b.blocker_id = ?1 AND b.blocked_id = u.id)) AS blocked
                FROM \(from)
                """,
            arguments: [viewer.rawValue] + arguments
        ).map { (row: Row) -> PresenceFacts in
            let id: Int64 = row["id"]
            let visibility: String = row["presence"]
            return PresenceFacts(
                userId: UserID(id), visibility: PresenceVisibility(rawValue: visibility), online: row["online"],
                lastSeenAt: row["last_seen_at"], isFriend: row["friend"], blockedEitherWay: row["blocked"])
        }
    }

    public func presenceWatchers(of userId: UserID) async throws -> [UserID] {
        try await pool.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT c.friend_id FROM contacts c JOIN users u ON u.id = c.owner_id
                    WHERE c.owner_id = ? AND u.presence <> 'nobody' ORDER BY c.friend_id
                    """,
                arguments: [userId.rawValue]
            ).map { UserID($0) }
        }
    }
}
