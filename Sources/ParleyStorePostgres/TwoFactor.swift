import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func twoFactor(of userId: UserID) async throws -> TwoFactorRecord? {
        try await plain { connection in
            try await connection.rows(
                """
                SELECT t.*, (SELECT COUNT(*) FROM recovery_codes r WHERE r.user_id = t.user_id AND r.used_at IS NULL)
                    AS codes_left
                FROM two_factor t WHERE user_id = $1
                """, [.int(userId.rawValue)], logger: self.logger
            ).first.map { row in
                TwoFactorRecord(
                    userId: userId, secret: try row.text("secret"), enabledAt: try row.optionalInt("enabled_at"),
                    lastStep: try row.int("last_step"), failures: Int(try row["failures"].decode(Int32.self)),
                    lockedUntil: try row.optionalInt("locked_until"), recoveryCodesLeft: Int(try row.int("codes_left")))
            }
        }
    }

    public func beginTwoFactor(_ userId: UserID, secret: String, at now: Int64) async throws -> Bool {
        try await plain { connection in
            try await !connection.rows(
                """
                INSERT INTO two_factor (user_id, secret) VALUES ($1, $2)
                ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret WHERE two_factor.enabled_at IS NULL
                RETURNING user_id
                """, [.int(userId.rawValue), .text(secret)], logger: self.logger
            ).isEmpty
        }
    }

    public func enableTwoFactor(_ userId: UserID, step: Int64, recoveryCodeHashes: [String], at now: Int64)
        async throws -> Bool
    {
        try await transaction { connection in
            let enabled = try await connection.rows(
                """
                UPDATE two_factor SET enabled_at = $1, last_step = $2, failures = 0
                WHERE user_id = $3 AND enabled_at IS NULL AND last_step < $2 RETURNING user_id
                """, [.int(now), .int(step), .int(userId.rawValue)], logger: self.logger)
            guard !enabled.isEmpty else { return false }
            try await connection.rows(
                "DELETE FROM recovery_codes WHERE user_id = $1", [.int(userId.rawValue)], logger: self.logger)
            for hash in recoveryCodeHashes {
                try await connection.rows(
                    "INSERT INTO recovery_codes (user_id, hash) VALUES ($1, $2)", [.int(userId.rawValue), .text(hash)],
                    logger: self.logger)
            }
            return true
        }
    }

    public func disableTwoFactor(_ userId: UserID) async throws -> Bool {
        try await transaction { connection in
            let removed = try await connection.rows(
                "DELETE FROM two_factor WHERE user_id = $1 AND enabled_at IS NOT NULL RETURNING user_id",
                [.int(userId.rawValue)], logger: self.logger)
            guard !removed.isEmpty else { return false }
            try await connection.rows(
                "DELETE FROM recovery_codes WHERE user_id = $1", [.int(userId.rawValue)], logger: self.logger)
            return true
        }
    }

    public func useTwoFactorStep(_ userId: UserID, step: Int64) async throws -> Bool {
        try await plain { connection in
            try await !connection.rows(
                "UPDATE two_factor SET last_step = $1, failures = 0 WHERE user_id = $2 AND last_step < $1 RETURNING user_id",
                [.int(step), .int(userId.rawValue)], logger: self.logger
            ).isEmpty
        }
    }

    public func useRecoveryCode(_ userId: UserID, hash: String, at now: Int64) async throws -> Bool {
        try await transaction { connection in
            let used = try await connection.rows(
                """
                UPDATE recovery_codes SET used_at = $1 WHERE user_id = $2 AND hash = $3 AND used_at IS NULL
                RETURNING hash
                """, [.int(now), .int(userId.rawValue), .text(hash)], logger: self.logger)
            guard !used.isEmpty else { return false }
            try await connection.rows(
                "UPDATE two_factor SET failures = 0 WHERE user_id = $1", [.int(userId.rawValue)], logger: self.logger)
            return true
        }
    }

    public func noteTwoFactorFailure(_ userId: UserID, limit: Int, lockedUntil: Int64) async throws -> Int64? {
        try await plain { connection in
            try await connection.rows(
                """
                UPDATE two_factor SET
                    failures = CASE WHEN failures + 1 >= $1 THEN 0 ELSE failures + 1 END,
                    locked_until = CASE WHEN failures + 1 >= $1 THEN $2 ELSE locked_until END
                WHERE user_id = $3
                RETURNING CASE WHEN failures = 0 THEN locked_until END AS locked
                """, [.int(Int64(limit)), .int(lockedUntil), .int(userId.rawValue)], logger: self.logger
            ).first?.optionalInt("locked")
        }
    }
}
