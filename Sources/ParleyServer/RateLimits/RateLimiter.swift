import ParleyCore
import ParleyStore

/// Checks requests against the server's ``RateLimits``: each limit is a token bucket per
/// address or per account, kept by the store (so that with PostgreSQL every node counts the
/// same requests). A refused request throws `rate_limited` with when to try again.
struct RateLimiter: Sendable {
    let store: any ParleyStore
    let clock: WallClock
    let limits: RateLimits

    /// Takes one request of `name` for `key` (an address or a user id); throws when the
    /// bucket is empty.
    func take(_ name: RateLimits.Name, for key: String) async throws {
        guard let limit = limits[name] else { return }
        let now = clock.now()
        guard
            let wait = try await store.takeToken(
                "\(name.rawValue):\(key)", burst: Double(limit.burst), perMillisecond: limit.rate / 1_000, at: now)
        else { return }
        throw RetryLaterError(.rateLimited, until: now + wait, now: now) {
            "Too many \(name.action) (\(limit.burst) at once, then \(limit.rateInWords)); try again in \($0)."
        }
    }

    func take(_ name: RateLimits.Name, for userId: UserID) async throws {
        try await take(name, for: "user:\(userId.rawValue)")
    }
}
