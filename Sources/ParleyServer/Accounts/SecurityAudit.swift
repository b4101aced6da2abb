import Logging
import ParleyCore
import ParleyStore

/// The account security trail: each event goes to the user's security log (the store) and
/// to the operator's log as a structured line. Only ids, device names and addresses are
/// written, never a password, token, code or secret.
struct SecurityAudit: Sendable {
    /// The most events one request answers.
    static let maxPage = 100

    let store: any ParleyStore
    let clock: WallClock
    let logger: Logger

    /// Logs `kind` for the operator and keeps it in `userId`'s security log.
    func note(
        _ kind: SecurityEventKind, of userId: UserID, device: String? = nil, ip: String? = nil,
        _ details: Logger.Metadata = [:]
    ) async throws {
        logKept(kind, of: userId, device: device, ip: ip, details)
        try await store.noteSecurityEvent(
            SecurityEvent(kind: kind, at: clock.now(), device: device, ip: ip), for: userId)
    }

    /// Logs `kind` for the operator only, for an event the store kept in the security log with
    /// the change it belongs to (a login, with its session: ``SessionStore/createSession(_:)``).
    func logKept(
        _ kind: SecurityEventKind, of userId: UserID, device: String? = nil, ip: String? = nil,
        _ details: Logger.Metadata = [:]
    ) {
        var metadata = details
        metadata["user"] = "\(userId)"
        if let device { metadata["device"] = "\(device)" }
        if let ip { metadata["ip"] = "\(ip)" }
        log(kind.rawValue, metadata)
    }

    /// An operator's line only (failed attempts, locks, logouts).
    func log(_ message: String, _ metadata: Logger.Metadata) {
        var metadata = metadata
        metadata["audit"] = "account"
        logger.notice("\(message)", metadata: metadata)
    }

    func events(of userId: UserID, limit: Int) async throws -> [SecurityEvent] {
        try await store.securityEvents(of: userId, limit: limit)
    }
}
