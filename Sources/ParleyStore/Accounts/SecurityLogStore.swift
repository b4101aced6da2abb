import ParleyCore

/// Each user's security log: logins, password and two-factor changes, ended sessions.
public protocol SecurityLogStore: Sendable {
    /// Appends `event` to the log of `userId`.
    func noteSecurityEvent(_ event: SecurityEvent, for userId: UserID) async throws
    /// The newest `limit` events of `userId`, newest first.
    func securityEvents(of userId: UserID, limit: Int) async throws -> [SecurityEvent]
}
