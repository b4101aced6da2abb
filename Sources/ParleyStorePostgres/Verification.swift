import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func saveVerificationCode(_ code: VerificationCodeRecord, unlessSentAfter resendBarrier: Int64)
        async throws -> Int64?
    {
        try await plain { connection in
            let saved = try await connection.rows(
                """
                INSERT INTO verification_codes AS v
                    (user_id, purpose, destination, code_hash, sent_at, expires_at, attempts)
                VALUES ($1, $2, $3, $4, $5, $6, 0)
                ON CONFLICT (user_id, purpose) DO UPDATE SET destination = excluded.destination,
                    code_hash = excluded.code_hash, sent_at = excluded.sent_at, expires_at = excluded.expires_at,
                    attempts = 0
                WHERE v.sent_at <= $7
                RETURNING sent_at
                """,
                [
                    .int(code.userId.rawValue), .text(code.purpose.rawValue), .text(code.destination),
                    .text(code.codeHash), .int(code.sentAt), .int(code.expiresAt), .int(resendBarrier),
                ], logger: self.logger)
            guard saved.isEmpty else { return nil }
            return try await connection.scalar(
                Int64.self, "SELECT sent_at FROM verification_codes WHERE user_id = $1 AND purpose = $2",
                [.int(code.userId.rawValue), .text(code.purpose.rawValue)], logger: self.logger) ?? code.sentAt
        }
    }

    public func dropVerificationCode(of userId: UserID, purpose: VerificationPurpose, codeHash: String) async throws {
        try await plain { connection in
            try await connection.rows(
                "DELETE FROM verification_codes WHERE user_id = $1 AND purpose = $2 AND code_hash = $3",
                [.int(userId.rawValue), .text(purpose.rawValue), .text(codeHash)], logger: self.logger)
        }
    }

    public func verificationCode(of userId: UserID, purpose: VerificationPurpose) async throws
        -> VerificationCodeRecord?
    {
        try await plain { connection in
            try await connection.rows(
                "SELECT * FROM verification_codes WHERE user_id = $1 AND purpose = $2",
                [.int(userId.rawValue), .text(purpose.rawValue)], logger: self.logger
            ).first.map { row in
                VerificationCodeRecord(
                    userId: userId, purpose: purpose, destination: try row.text("destination"),
                    codeHash: try row.text("code_hash"), sentAt: try row.int("sent_at"),
                    expiresAt: try row.int("expires_at"), attempts: Int(try row["attempts"].decode(Int32.self)))
            }
        }
    }

    public func noteWrongVerificationCode(of userId: UserID, purpose: VerificationPurpose, maxAttempts: Int)
        async throws -> Bool
    {
        try await transaction { connection in
            try await connection.rows(
                "UPDATE verification_codes SET attempts = attempts + 1 WHERE user_id = $1 AND purpose = $2",
                [.int(userId.rawValue), .text(purpose.rawValue)], logger: self.logger)
            return try await connection.rows(
                """
                DELETE FROM verification_codes WHERE user_id = $1 AND purpose = $2 AND attempts >= $3 RETURNING user_id
                """, [.int(userId.rawValue), .text(purpose.rawValue), .int(Int64(maxAttempts))], logger: self.logger
            ).isEmpty
        }
    }

    public func useVerificationCode(of userId: UserID, purpose: VerificationPurpose, codeHash: String, at now: Int64)
        async throws -> UserRecord?
    {
        try await write { connection, notes in
            guard let destination = try await self.takeCode(connection, userId, purpose, codeHash, now) else {
                return nil
            }
            let column = purpose.channel == .phone ? "phone" : "email"
            let updated =
                if purpose == .verifyEmail || purpose == .verifyPhone {
                    try await connection.rows(
                        "UPDATE users SET \(column)_verified_at = $1 WHERE id = $2 AND \(column) = $3 RETURNING *",
                        [.int(now), .int(userId.rawValue), .text(destination)], logger: self.logger)
                } else {
                    try await connection.rows(
                        "UPDATE users SET \(column) = $3, \(column)_verified_at = $1 WHERE id = $2 RETURNING *",
                        [.int(now), .int(userId.rawValue), .text(destination)], logger: self.logger)
                }
            guard let user = try updated.first.map(UserRecord.init(row:)) else { return nil }
            try await self.announce(
                connection, notes, [Announcement(to: [userId], ProfileUpdated(account: user.account).body)], at: now)
            return user
        }
    }

    public func resetPassword(of userId: UserID, codeHash: String, to passwordHash: String, at now: Int64)
        async throws -> Int?
    {
        try await write { connection, notes in
            guard try await self.takeCode(connection, userId, .resetPassword, codeHash, now) != nil else { return nil }
            try await connection.rows(
                "UPDATE users SET password_hash = $1 WHERE id = $2", [.text(passwordHash), .int(userId.rawValue)],
                logger: self.logger)
            let revoked = try await connection.rows(
                "UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL RETURNING id",
                [.int(now), .int(userId.rawValue)], logger: self.logger)
            for row in revoked { notes.add(ChangeNote(session: try row.int("id"))) }
            return revoked.count
        }
    }

    /// Deletes the pending code if it is `codeHash` and has not expired; answers its destination.
    private func takeCode(
        _ connection: PostgresConnection, _ userId: UserID, _ purpose: VerificationPurpose, _ codeHash: String,
        _ now: Int64
    ) async throws -> String? {
        try await connection.rows(
            """
            DELETE FROM verification_codes
            WHERE user_id = $1 AND purpose = $2 AND code_hash = $3 AND expires_at > $4
            RETURNING destination
            """, [.int(userId.rawValue), .text(purpose.rawValue), .text(codeHash), .int(now)], logger: self.logger
        ).first?.text("destination")
    }
}
