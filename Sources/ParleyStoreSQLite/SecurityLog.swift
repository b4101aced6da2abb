import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func noteSecurityEvent(_ event: SecurityEvent, for userId: UserID) async throws {
        try await groupCommit.write(to: self) { db in try Self.insertSecurityEvent(db, event, for: userId) }
    }

    /// Keeps `event` in `userId`'s security log, in the caller's transaction.
    static func insertSecurityEvent(_ db: Database, _ event: SecurityEvent, for userId: UserID) throws {
        try db.run(
            "INSERT INTO security_events (user_id, kind, at, device, ip) VALUES (?, ?, ?, ?, ?)",
            [userId.rawValue, event.kind.rawValue, event.at, event.device, event.ip])
    }

    public func securityEvents(of userId: UserID, limit: Int) async throws -> [SecurityEvent] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM security_events WHERE user_id = ? ORDER BY id DESC LIMIT ?",
                arguments: [userId.rawValue, limit]
            ).map { row in
                SecurityEvent(
                    kind: SecurityEventKind(rawValue: row["kind"]), at: row["at"], device: row["device"], ip: row["ip"])
            }
        }
    }
}
