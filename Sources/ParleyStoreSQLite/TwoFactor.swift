import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func twoFactor(of userId: UserID) async throws -> TwoFactorRecord? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT t.*, (SELECT COUNT(*) FROM recovery_codes r WHERE r.user_id = t.user_id AND r.used_at IS NULL)
                        AS codes_left
                    FROM two_factor t WHERE user_id = ?
                    """, arguments: [userId.rawValue]
            ).map { row in
                TwoFactorRecord(
                    userId: userId, secret: row["secret"], enabledAt: row["enabled_at"], lastStep: row["last_step"],
                    failures: row["failures"], lockedUntil: row["locked_until"], recoveryCodesLeft: row["codes_left"])
            }
        }
    }

    public func beginTwoFactor(_ userId: UserID, secret: String, at now: Int64) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO two_factor (user_id, secret) VALUES (?, ?)
                    ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret WHERE enabled_at IS NULL
                    """, arguments: [userId.rawValue, secret])
            return db.changesCount == 1
        }
    }

    public func enableTwoFactor(_ userId: UserID, step: Int64, recoveryCodeHashes: [String], at now: Int64)
        async throws -> Bool
    {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE two_factor SET enabled_at = ?, last_step = ?, failures = 0
                    WHERE user_id = ? AND enabled_at IS NULL AND last_step < ?
                    """, arguments: [now, step, userId.rawValue, step])
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "DELETE FROM recovery_codes WHERE user_id = ?", arguments: [userId.rawValue])
            for hash in recoveryCodeHashes {
                try db.execute(
                    sql: "INSERT INTO recovery_codes (user_id, hash) VALUES (?, ?)", arguments: [userId.rawValue, hash])
            }
            return true
        }
    }

    public func disableTwoFactor(_ userId: UserID) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM two_factor WHERE user_id = ? AND enabled_at IS NOT NULL", arguments: [userId.rawValue]
            )
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "DELETE FROM recovery_codes WHERE user_id = ?", arguments: [userId.rawValue])
            return true
        }
    }

    public func useTwoFactorStep(_ userId: UserID, step: Int64) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE two_factor SET last_step = ?, failures = 0 WHERE user_id = ? AND last_step < ?",
                arguments: [step, userId.rawValue, step])
            return db.changesCount == 1
        }
    }

    public func useRecoveryCode(_ userId: UserID, hash: String, at now: Int64) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND hash = ? AND used_at IS NULL",
                arguments: [now, userId.rawValue, hash])
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "UPDATE two_factor SET failures = 0 WHERE user_id = ?", arguments: [userId.rawValue])
            return true
        }
    }

    public func noteTwoFactorFailure(_ userId: UserID, limit: Int, lockedUntil: Int64) async throws -> Int64? {
        try await write { db in
            try Row.fetchOne(
                db,
                sql: """
                    UPDATE two_factor SET
                        failures = CASE WHEN failures + 1 >= ? THEN 0 ELSE failures + 1 END,
                        locked_until = CASE WHEN failures + 1 >= ? THEN ? ELSE locked_until END
                    WHERE user_id = ?
                    RETURNING CASE WHEN failures = 0 THEN locked_until END
                    """, arguments: [limit, limit, lockedUntil, userId.rawValue]
            ).flatMap { $0[0] as Int64? }
        }
    }
}
