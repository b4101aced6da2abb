import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func createSession(_ session: NewSession) async throws -> SessionRecord {
        let logger = self.logger
        return try await plain { connection in
            try SessionRecord(
                row: try await connection.rows(
                    """
                    WITH session AS (
                        INSERT INTO sessions (user_id, device, ip, created_at, last_used_at, access_hash,
                            access_expires_at, refresh_hash, refresh_expires_at)
                        VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8) RETURNING *),
                    noted AS (
                        INSERT INTO security_events (user_id, kind, at, device, ip)
                        SELECT user_id, $9, created_at, device, ip FROM session)
                    SELECT * FROM session
                    """,
                    [
                        .int(session.userId.rawValue), .text(session.device), .text(session.ip),
                        .int(session.createdAt),
                        .text(session.tokens.accessTokenHash), .int(session.tokens.accessExpiresAt),
                        .text(session.tokens.refreshTokenHash), .int(session.tokens.refreshExpiresAt),
                        .text(SecurityEventKind.login.rawValue),
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
            if SessionRules.shouldNoteUse(lastUsedAt: session.lastUsedAt, now: now) {
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

extension SessionRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: SessionID(try row.int("id")), userId: UserID(try row.int("user_id")), device: try row.text("device"),
            ip: try row.text("ip"), createdAt: try row.int("created_at"), lastUsedAt: try row.int("last_used_at"),
            revokedAt: try row.optionalInt("revoked_at"), accessExpiresAt: try row.int("access_expires_at"),
            refreshExpiresAt: try row.int("refresh_expires_at"))
    }
}
