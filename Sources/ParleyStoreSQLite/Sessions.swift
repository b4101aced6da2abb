import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func createSession(_ session: NewSession) async throws -> SessionRecord {
        try await groupCommit.write(to: self) { db in
            try db.run(
                """
                INSERT INTO sessions (user_id, device, ip, created_at, last_used_at, access_hash,
                    access_expires_at, refresh_hash, refresh_expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    session.userId.rawValue, session.device, session.ip, session.createdAt, session.createdAt,
                    session.tokens.accessTokenHash, session.tokens.accessExpiresAt, session.tokens.refreshTokenHash,
                    session.tokens.refreshExpiresAt,
                ])
            let id = db.lastInsertedRowID
            try Self.insertSecurityEvent(
                db, SecurityEvent(kind: .login, at: session.createdAt, device: session.device, ip: session.ip),
                for: session.userId)
            return try Self.fetchSession(db, sql: "id = ?", id)!
        }
    }

    public func session(accessTokenHash: String, at now: Int64) async throws -> SessionRecord? {
        let found = try await pool.read { db in
            try Self.fetchSession(
                db, sql: "access_hash = ? AND revoked_at IS NULL AND access_expires_at > ?", accessTokenHash, now)
        }
        guard var session = found else { return nil }
        if SessionRules.shouldNoteUse(lastUsedAt: session.lastUsedAt, now: now) {
            let id = session.id.rawValue
            try await write { db in
                try db.execute(sql: "UPDATE sessions SET last_used_at = ? WHERE id = ?", arguments: [now, id])
            }
            session.lastUsedAt = now
        }
        return session
    }

    public func rotateTokens(refreshTokenHash: String, to tokens: SessionTokens, at now: Int64) async throws
        -> SessionRecord?
    {
        try await write { db in
            guard
                let session = try Self.fetchSession(
                    db, sql: "refresh_hash = ? AND revoked_at IS NULL AND refresh_expires_at > ?", refreshTokenHash,
                    now)
            else {
                let reused = try Int64.fetchOne(
                    db, sql: "SELECT session_id FROM spent_refresh_tokens WHERE hash = ?", arguments: [refreshTokenHash]
                )
                if let reused {
                    try db.execute(
                        sql: "UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                        arguments: [now, reused])
                    if db.changesCount == 1 { self.publishAfterCommit(db, .sessionRevoked(SessionID(reused))) }
                }
                return nil
            }
            try db.execute(
                sql: "INSERT INTO spent_refresh_tokens (hash, session_id) VALUES (?, ?)",
                arguments: [refreshTokenHash, session.id.rawValue])
            try db.execute(
                sql: """
                    UPDATE sessions SET access_hash = ?, access_expires_at = ?, refresh_hash = ?,
                        refresh_expires_at = ?, last_used_at = ?
                    WHERE id = ?
                    """,
                arguments: [
                    tokens.accessTokenHash, tokens.accessExpiresAt, tokens.refreshTokenHash, tokens.refreshExpiresAt,
                    now, session.id.rawValue,
                ])
            return try Self.fetchSession(db, sql: "id = ?", session.id.rawValue)
        }
    }

    public func sessions(of userId: UserID) async throws -> [SessionRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM sessions WHERE user_id = ? ORDER BY id DESC", arguments: [userId.rawValue]
            ).map(SessionRecord.init(row:))
        }
    }

    public func revokeSession(_ id: SessionID, of userId: UserID, at now: Int64) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE sessions SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
                arguments: [now, id.rawValue, userId.rawValue])
            guard db.changesCount == 1 else { return false }
            self.publishAfterCommit(db, .sessionRevoked(id))
            return true
        }
    }

    static func fetchSession(_ db: Database, sql condition: String, _ arguments: any DatabaseValueConvertible...)
        throws -> SessionRecord?
    {
        // `condition` is one of a few constant texts, so its statement is cached.
        try Row.decodeFirst(
            db, sql: "SELECT * FROM sessions WHERE \(condition)",
            arguments: StatementArguments(arguments.map { $0 as (any DatabaseValueConvertible)? }),
            SessionRecord.init(row:))
    }
}
