import Synchronization

/// Locks an account's password login after repeated failures (SPEC 5), for a while.
///
/// Kept in memory: a restart forgets it, which errs on the side of letting people in.
final class LoginThrottle: Sendable {
    private struct Record {
        var failures: Int
        var lockedUntil: Int64
    }

    private let maxFailures: Int
    private let lockout: Int64
    private let records = Mutex<[String: Record]>([:])

    init(maxFailures: Int, lockoutMilliseconds: Int64) {
        self.maxFailures = maxFailures
        self.lockout = lockoutMilliseconds
    }

    /// The time until which `login` is locked, or nil when it may try.
    func lockedUntil(_ login: String, now: Int64) -> Int64? {
        records.withLock { records in
            guard let record = records[login], record.lockedUntil > now else { return nil }
            return record.lockedUntil
        }
    }

    /// Counts a failure; the `maxFailures`-th locks the login.
    func recordFailure(_ login: String, now: Int64) {
        records.withLock { records in
            var record = records[login] ?? Record(failures: 0, lockedUntil: 0)
            if record.lockedUntil != 0 && record.lockedUntil <= now { record = Record(failures: 0, lockedUntil: 0) }
            record.failures += 1
            if record.failures >= maxFailures { record.lockedUntil = now + lockout }
            records[login] = record
        }
    }

    func recordSuccess(_ login: String) {
        _ = records.withLock { $0.removeValue(forKey: login) }
    }
}
