import ParleyCore
import Synchronization

/// Limits password guessing (SPEC 5), per account and per source IP.
///
/// An account (whatever login names it: username, email or phone) is locked for
/// `lockout` after `maxFailures` failed logins; a source IP is refused for `lockout` after
/// `maxFailuresPerIP`, so spraying many accounts from one address is slowed too. A login
/// naming no account is counted under the login string, so a lock tells nothing about
/// whether the account exists. Attempts still being checked count against the limit
/// (``begin(account:ip:now:)`` reserves one), so parallel guesses cannot exceed it: an
/// attempt that would exceed it only because others are in flight waits for them.
///
/// Kept in memory: a restart forgets it, which errs on the side of letting people in. A
/// counter is forgotten once it holds nothing, and expired ones are swept out now and then,
/// so the memory follows the failures of the last lockout period.
final class LoginThrottle: Sendable {
    /// An attempt reserved by ``begin(account:ip:now:)``; end it with ``finish(_:succeeded:now:)``.
    struct Attempt: Sendable {
        fileprivate let account: String
        fileprivate let ip: String
    }

    private struct Counter {
        var failures = 0
        var inFlight = 0
        var lockedUntil: Int64 = 0
        var lastFailureAt: Int64 = 0

        var holdsAnything: Bool { failures > 0 || inFlight > 0 }
    }

    private struct State {
        var accounts: [String: Counter] = [:]
        var ips: [String: Counter] = [:]
        var changesSinceSweep = 0
    }

    /// How an attempt ended.
    enum Outcome {
        case succeeded, failed
        /// The check itself failed (a server error): neither a success nor a guess.
        case abandoned
    }

    private let maxFailures: Int
    private let maxFailuresPerIP: Int
    private let lockout: Int64
    private let state = Mutex(State())

    /// `maxFailuresPerIP` 0 turns the per-address limit off (behind a reverse proxy).
    init(maxFailures: Int, maxFailuresPerIP: Int, lockoutMilliseconds: Int64) {
        self.maxFailures = maxFailures
        self.maxFailuresPerIP = maxFailuresPerIP > 0 ? maxFailuresPerIP : Int.max
        self.lockout = lockoutMilliseconds
    }

    private enum Reservation {
        case reserved
        /// Locked by failures until this time.
        case locked(until: Int64)
        /// At the limit only because of attempts in flight; one of them may yet succeed.
        case busy
    }

    /// Reserves an attempt for `account` from `ip`, waiting while attempts in flight fill
    /// the limit; throws ``RetryLaterError`` with `too_many_attempts` when either is locked.
    func begin(account: String, ip: String, clock: WallClock) async throws -> Attempt {
        while true {
            let now = clock.now()
            switch reserve(account: account, ip: ip, now: now) {
            case .reserved:
                return Attempt(account: account, ip: ip)
            case .busy:
                try await Task.sleep(for: .milliseconds(20))
            case .locked(let until):
                throw RetryLaterError(.tooManyAttempts, until: until, now: now) {
                    "Too many failed logins; try again in \($0)."
                }
            }
        }
    }

    private func reserve(account: String, ip: String, now: Int64) -> Reservation {
        state.withLock { state in
            var accountCounter = Self.current(state.accounts[account], now: now, lockout: lockout)
            var ipCounter = Self.current(state.ips[ip], now: now, lockout: lockout)
            let locked = max(accountCounter.lockedUntil, ipCounter.lockedUntil)
            if locked > now { return .locked(until: locked) }
            if accountCounter.failures + accountCounter.inFlight >= maxFailures
                || ipCounter.failures + ipCounter.inFlight >= maxFailuresPerIP
            {
                return .busy
            }
            accountCounter.inFlight += 1
            ipCounter.inFlight += 1
            state.accounts[account] = accountCounter
            state.ips[ip] = ipCounter
            return .reserved
        }
    }

    /// Ends a reserved attempt: a failure counts (the limit's last one locks), a success
    /// clears the account's failures (not the IP's: an attacker's own account must not wash
    /// an address clean).
    func finish(_ attempt: Attempt, _ outcome: Outcome, now: Int64) {
        state.withLock { state in
            state.accounts[attempt.account] = Self.finished(
                state.accounts[attempt.account], outcome, clearOnSuccess: true, limit: maxFailures, now: now,
                lockout: lockout)
            state.ips[attempt.ip] = Self.finished(
                state.ips[attempt.ip], outcome, clearOnSuccess: false, limit: maxFailuresPerIP, now: now,
                lockout: lockout)
            state.changesSinceSweep += 1
            if state.changesSinceSweep >= 1_024 {
                state.changesSinceSweep = 0
                let lockout = self.lockout
                state.accounts = state.accounts.filter {
                    Self.current($0.value, now: now, lockout: lockout).holdsAnything
                }
                state.ips = state.ips.filter { Self.current($0.value, now: now, lockout: lockout).holdsAnything }
            }
        }
    }

    /// A counter with expired failures forgotten: a lock that ran out, or failures older
    /// than the lockout period.
    private static func current(_ counter: Counter?, now: Int64, lockout: Int64) -> Counter {
        guard var counter else { return Counter() }
        let lockExpired = counter.lockedUntil != 0 && counter.lockedUntil <= now
        if lockExpired || (counter.lockedUntil == 0 && counter.lastFailureAt + lockout <= now) {
            counter.failures = 0
            counter.lockedUntil = 0
        }
        return counter
    }

    private static func finished(
        _ counter: Counter?, _ outcome: Outcome, clearOnSuccess: Bool, limit: Int, now: Int64, lockout: Int64
    ) -> Counter? {
        var counter = current(counter, now: now, lockout: lockout)
        counter.inFlight = max(0, counter.inFlight - 1)
        switch outcome {
        case .succeeded:
            if clearOnSuccess { counter.failures = 0 }
        case .failed:
            counter.failures += 1
            counter.lastFailureAt = now
            if counter.failures >= limit { counter.lockedUntil = now + lockout }
        case .abandoned:
            break
        }
        // Forget what holds nothing, so the maps do not grow with every login string tried.
        return counter.holdsAnything ? counter : nil
    }
}
