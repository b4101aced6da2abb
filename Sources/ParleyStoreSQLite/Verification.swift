import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func saveVerificationCode(_ code: VerificationCodeRecord, unlessSentAfter resendBarrier: Int64)
        async throws -> Int64?
    {
        try await write { db in
            if let sentAt = try Int64.fetchOne(
                db, sql: "SELECT sent_at FROM verification_codes WHERE user_id = ? AND purpose = ?",
                arguments: [code.userId.rawValue, code.purpose.rawValue]), sentAt > resendBarrier
            {
                return sentAt
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO verification_codes
                        (user_id, purpose, destination, code_hash, sent_at, expires_at, attempts)
                    VALUES (?, ?, ?, ?, ?, ?, 0)
                    """,
                arguments: [
                    code.userId.rawValue, code.purpose.rawValue, code.destination, code.codeHash, code.sentAt,
                    code.expiresAt,
                ])
            return nil
        }
    }

    public func dropVerificationCode(of userId: UserID, purpose: VerificationPurpose, codeHash: String) async throws {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM verification_codes WHERE user_id = ? AND purpose = ? AND code_hash = ?",
                arguments: [userId.rawValue, purpose.rawValue, codeHash])
        }
    }

    public func verificationCode(of userId: UserID, purpose: VerificationPurpose) async throws
        -> VerificationCodeRecord?
    {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM verification_codes WHERE user_id = ? AND purpose = ?",
                arguments: [userId.rawValue, purpose.rawValue]
            ).map { row in
                VerificationCodeRecord(
                    userId: userId, purpose: purpose, destination: row["destination"], codeHash: row["code_hash"],
                    sentAt: row["sent_at"], expiresAt: row["expires_at"], attempts: row["attempts"])
            }
        }
    }

    public func noteWrongVerificationCode(of userId: UserID, purpose: VerificationPurpose, maxAttempts: Int)
        async throws -> Bool
    {
        try await write { db in
            try db.execute(
                sql: "UPDATE verification_codes SET attempts = attempts + 1 WHERE user_id = ? AND purpose = ?",
                arguments: [userId.rawValue, purpose.rawValue])
            try db.execute(
                sql: "DELETE FROM verification_codes WHERE user_id = ? AND purpose = ? AND attempts >= ?",
                arguments: [userId.rawValue, purpose.rawValue, maxAttempts])
            return db.changesCount == 0
        }
    }

    public func useVerificationCode(of userId: UserID, purpose: VerificationPurpose, codeHash: String, at now: Int64)
        async throws -> UserRecord?
    {
        do {
            return try await write { db in
                guard let destination = try Self.takeCode(db, userId, purpose, codeHash, now) else { return nil }
                let column = purpose.channel == .phone ? "phone" : "email"
                if purpose == .verifyEmail || purpose == .verifyPhone {
                    try db.execute(
                        sql: "UPDATE users SET \(column)_verified_at = ? WHERE id = ? AND \(column) = ?",
                        arguments: [now, userId.rawValue, destination])
                } else {
                    try db.execute(
                        sql: "UPDATE users SET \(column) = ?, \(column)_verified_at = ? WHERE id = ?",
                        arguments: [destination, now, userId.rawValue])
                }
                guard db.changesCount == 1, let user = try Self.fetchUser(db, id: userId) else { return nil }
                try self.announce(db, [Announcement(to: [userId], ProfileUpdated(account: user.account).body)], at: now)
                return user
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw purpose.channel == .phone ? ParleyError.phoneTaken() : ParleyError.emailTaken()
        }
    }

    public func resetPassword(of userId: UserID, codeHash: String, to passwordHash: String, at now: Int64)
        async throws -> Int?
    {
        try await write { db in
            guard try Self.takeCode(db, userId, .resetPassword, codeHash, now) != nil else { return nil }
            try db.execute(
                sql: "UPDATE users SET password_hash = ? WHERE id = ?", arguments: [passwordHash, userId.rawValue])
            let revoked = try Int64.fetchAll(
                db, sql: "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL RETURNING id",
                arguments: [now, userId.rawValue])
            for id in revoked { self.publishAfterCommit(db, .sessionRevoked(SessionID(id))) }
            return revoked.count
        }
    }

    /// Deletes the pending code if it is `codeHash` and has not expired; answers its destination.
    private static func takeCode(
        _ db: Database, _ userId: UserID, _ purpose: VerificationPurpose, _ codeHash: String, _ now: Int64
    ) throws -> String? {
        try String.fetchOne(
            db,
            sql: """
                DELETE FROM verification_codes
                WHERE user_id = ? AND purpose = ? AND code_hash = ? AND expires_at > ?
                RETURNING destination
                """, arguments: [userId.rawValue, purpose.rawValue, codeHash, now])
    }
}
