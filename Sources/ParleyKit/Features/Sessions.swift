import ParleyCore

/// The user's sessions, one per device that logged in (`client.sessions`): which device,
/// from which address, when it was last active; and revoking one, which signs that device
/// out and closes its sockets at once, on every node.
public struct Sessions: Sendable {
    let session: Session

    /// Every session of the user, newest first; ended ones carry `revokedAt`, and this
    /// device's has `current` set.
    public func list() async throws -> [SessionInfo] {
        let list: SessionList = try await session.http(.listSessions)
        return list.sessions
    }

    /// Signs the device of session `id` out; `not_found` when no live session of the user
    /// has that id. Revoking this device's own session is a logout without the local part:
    /// use ``ParleyClient/logout()`` for that.
    public func revoke(_ id: SessionID) async throws {
        let _: APIClient.Empty = try await session.http(.revokeSession, id)
    }

    /// The account's security log, newest first: logins, password and two-factor changes,
    /// recovery codes used, sessions ended from another device (at most 100).
    public func securityEvents(limit: Int = 100) async throws -> [SecurityEvent] {
        let list: SecurityEventList = try await session.http(.securityEvents, query: ["limit": "\(limit)"])
        return list.events
    }

    /// Signs every other device out; answers how many sessions it ended.
    @discardableResult
    public func revokeOthers() async throws -> Int {
        let others = try await list().filter { !$0.current && $0.revokedAt == nil }
        for other in others {
            do {
                try await revoke(other.id)
            } catch let error as ParleyError where error.code == .notFound {
                continue  // ended meanwhile (revoked from elsewhere)
            }
        }
        return others.count
    }
}
