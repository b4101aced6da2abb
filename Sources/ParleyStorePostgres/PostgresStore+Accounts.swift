import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func createUser(_ user: NewUser) async throws -> UserRecord {
        let email = user.email.map(AccountRules.canonicalEmail)
        let logger = self.logger
        let id = try await plain { connection in
            try await connection.scalar(
                Int64.self,
                """
                INSERT INTO users (username, username_key, email, phone, password_hash, nickname, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id
                """,
                [
                    .text(user.username), .text(AccountRules.canonicalUsername(user.username)), SQLValue(email),
                    SQLValue(user.phone), .text(user.passwordHash), .text(user.nickname), .int(user.createdAt),
                ], logger: logger)!
        }
        return UserRecord(
            id: UserID(id), username: user.username, email: email, phone: user.phone, passwordHash: user.passwordHash,
            nickname: user.nickname, signature: "", createdAt: user.createdAt)
    }

    public func findUser(login: String) async throws -> UserRecord? {
        let (column, key): (String, String) =
            login.contains("@")
            ? ("email", AccountRules.canonicalEmail(login))
            : login.hasPrefix("+") ? ("phone", login) : ("username_key", AccountRules.canonicalUsername(login))
        return try await fetchUser("\(column) = $1", .text(key))
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await fetchUser("id = $1", .int(id.rawValue))
    }

    public func user(username: String) async throws -> UserRecord? {
        try await fetchUser("username_key = $1", .text(AccountRules.canonicalUsername(username)))
    }

    private func fetchUser(_ condition: String, _ value: SQLValue) async throws -> UserRecord? {
        let logger = self.logger
        return try await plain { connection in
            try await connection.rows("SELECT * FROM users WHERE \(condition)", [value], logger: logger).first.map(
                UserRecord.init(row:))
        }
    }

    public func updateProfile(userId: UserID, nickname: String?, signature: String?, at now: Int64) async throws
        -> UserRecord
    {
        try await write { connection, notes in
            guard
                let row = try await connection.rows(
                    """
                    UPDATE users SET nickname = COALESCE($1, nickname), signature = COALESCE($2, signature)
                    WHERE id = $3 RETURNING *
                    """,
                    [SQLValue(nickname), SQLValue(signature), .int(userId.rawValue)], logger: self.logger
                ).first
            else { throw ParleyError(.userNotFound, "No such user.") }
            let user = try UserRecord(row: row)
            let event = try await self.appendEvent(
                connection, to: userId, UserEvent(seq: 0, type: .profileUpdated, account: user.account, at: now))
            notes.add(ChangeNote(events: [[userId.rawValue, event.seq]]))
            return user
        }
    }

    /// Appends `event` (its seq assigned here) to a user's stream.
    func appendEvent(_ connection: PostgresConnection, to userId: UserID, _ event: UserEvent) async throws -> UserEvent
    {
        guard
            let seq = try await connection.scalar(
                Int64.self, "UPDATE users SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq",
                [.int(userId.rawValue)], logger: logger)
        else { throw ParleyError(.userNotFound, "User \(userId) does not exist.") }
        var event = event
        event.seq = seq
        try await connection.rows(
            "INSERT INTO user_events (user_id, seq, body) VALUES ($1, $2, $3)",
            [.int(userId.rawValue), .int(seq), .text(try JSONText.encode(event))], logger: logger)
        return event
    }

    // MARK: Sessions

    public func createSession(_ session: NewSession) async throws -> SessionRecord {
        let logger = self.logger
        return try await plain { connection in
            try SessionRecord(
                row: try await connection.rows(
                    """
                    INSERT INTO sessions (user_id, device, ip, created_at, last_used_at, access_hash, access_expires_at,
                        refresh_hash, refresh_expires_at)
                    VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8) RETURNING *
                    """,
                    [
                        .int(session.userId.rawValue), .text(session.device), .text(session.ip),
                        .int(session.createdAt),
                        .text(session.tokens.accessTokenHash), .int(session.tokens.accessExpiresAt),
                        .text(session.tokens.refreshTokenHash), .int(session.tokens.refreshExpiresAt),
                    ], logger: logger)[0])
        }
    }

    public func session(accessTokenHash: String, at now: Int64) async throws -> SessionRecord? {
        let logger = self.logger
        return try await plain { connection in
            guard
                var session = try await connection.rows(
                    "SELECT * FROM sessions WHERE access_hash = $1 AND revoked_at IS NULL AND access_expires_at > $2",
                    [.text(accessTokenHash), .int(now)], logger: logger
                ).first.map(SessionRecord.init(row:))
            else { return nil }
            if now - session.lastUsedAt >= 60_000 {
                try await connection.rows(
                    "UPDATE sessions SET last_used_at = $1 WHERE id = $2", [.int(now), .int(session.id.rawValue)],
                    logger: logger)
                session.lastUsedAt = now
            }
            return session
        }
    }

    public func rotateTokens(refreshTokenHash: String, to tokens: SessionTokens, at now: Int64) async throws
        -> SessionRecord?
    {
        try await write { connection, notes in
            let rotated = try await connection.rows(
                """
                UPDATE sessions SET access_hash = $1, access_expires_at = $2, refresh_hash = $3, refresh_expires_at = $4,
                    last_used_at = $5
                WHERE refresh_hash = $6 AND revoked_at IS NULL AND refresh_expires_at > $5 RETURNING *
                """,
                [
                    .text(tokens.accessTokenHash), .int(tokens.accessExpiresAt), .text(tokens.refreshTokenHash),
                    .int(tokens.refreshExpiresAt), .int(now), .text(refreshTokenHash),
                ], logger: self.logger
            ).first.map(SessionRecord.init(row:))
            if let rotated {
                _ = try await connection.rows(
                    "INSERT INTO spent_refresh_tokens (hash, session_id) VALUES ($1, $2)",
                    [.text(refreshTokenHash), .int(rotated.id.rawValue)], logger: self.logger)
                return rotated
            }
            let revoked = try await connection.rows(
                """
                UPDATE sessions SET revoked_at = $1
                WHERE id = (SELECT session_id FROM spent_refresh_tokens WHERE hash = $2) AND revoked_at IS NULL RETURNING id
                """,
                [.int(now), .text(refreshTokenHash)], logger: self.logger)
            if let id = try revoked.first?.int("id") { notes.add(ChangeNote(session: id)) }
            return nil
        }
    }

    public func sessions(of userId: UserID) async throws -> [SessionRecord] {
        let logger = self.logger
        return try await plain { connection in
            try await connection.rows(
                "SELECT * FROM sessions WHERE user_id = $1 ORDER BY id DESC", [.int(userId.rawValue)], logger: logger
            ).map(SessionRecord.init(row:))
        }
    }

    public func revokeSession(_ id: SessionID, of userId: UserID, at now: Int64) async throws -> Bool {
        try await write { connection, notes in
            let revoked = try await connection.rows(
                "UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL RETURNING id",
                [.int(now), .int(id.rawValue), .int(userId.rawValue)], logger: self.logger)
            guard !revoked.isEmpty else { return false }
            notes.add(ChangeNote(session: id.rawValue))
            return true
        }
    }
}

extension UserRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: UserID(try row.int("id")), username: try row.text("username"), email: try row.optionalText("email"),
            phone: try row.optionalText("phone"), passwordHash: try row.text("password_hash"),
            nickname: try row.text("nickname"), signature: try row.text("signature"),
            createdAt: try row.int("created_at"))
    }
}

extension SessionRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: SessionID(try row.int("id")), userId: UserID(try row.int("user_id")), device: try row.text("device"),
            ip: try row.text("ip"), createdAt: try row.int("created_at"), lastUsedAt: try row.int("last_used_at"),
            revokedAt: try row.optionalInt("revoked_at"), accessExpiresAt: try row.int("access_expires_at"),
            refreshExpiresAt: try row.int("refresh_expires_at"))
    }
}
