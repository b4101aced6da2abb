import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func noteSecurityEvent(_ event: SecurityEvent, for userId: UserID) async throws {
        try await plain { connection in
            try await connection.rows(
                "INSERT INTO security_events (user_id, kind, at, device, ip) VALUES ($1, $2, $3, $4, $5)",
                [
                    .int(userId.rawValue), .text(event.kind.rawValue), .int(event.at), SQLValue(event.device),
                    SQLValue(event.ip),
                ], logger: self.logger)
        }
    }

    public func securityEvents(of userId: UserID, limit: Int) async throws -> [SecurityEvent] {
        try await plain { connection in
            try await connection.rows(
                "SELECT * FROM security_events WHERE user_id = $1 ORDER BY id DESC LIMIT $2",
                [.int(userId.rawValue), .int(Int64(limit))], logger: self.logger
            ).map { row in
                SecurityEvent(
                    kind: SecurityEventKind(rawValue: try row.text("kind")), at: try row.int("at"),
                    device: try row.optionalText("device"), ip: try row.optionalText("ip"))
            }
        }
    }
}
