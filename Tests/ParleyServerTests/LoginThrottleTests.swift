import ParleyCore
import Testing

@testable import ParleyServer

/// The lockout's arithmetic, on a clock the test moves.
@Suite struct LoginThrottleTests {
    func attempt(
        _ throttle: LoginThrottle, _ account: String, ip: String = "10.0.0.1", _ outcome: LoginThrottle.Outcome,
        clock: TestClock
    )
        async throws
    {
        let reserved = try await throttle.begin(account: account, ip: ip, clock: clock.wallClock)
        throttle.finish(reserved, outcome, now: clock.wallClock.now())
    }

    func isLocked(_ throttle: LoginThrottle, _ account: String, ip: String = "10.0.0.1", clock: TestClock) async -> Bool
    {
        do {
            let reserved = try await throttle.begin(account: account, ip: ip, clock: clock.wallClock)
            throttle.finish(reserved, .abandoned, now: clock.wallClock.now())
            return false
        } catch {
            return (error as? RetryLaterError)?.error.code == .tooManyAttempts
        }
    }

    @Test func aLockRunsOutAfterTheLockoutAndServerErrorsAreNoGuesses() async throws {
        let clock = TestClock()
        let throttle = LoginThrottle(maxFailures: 2, maxFailuresPerIP: 100, lockoutMilliseconds: 60_000)
        for _ in 0..<5 { try await attempt(throttle, "user:1", .abandoned, clock: clock) }
        #expect(await !isLocked(throttle, "user:1", clock: clock), "a failed check is not a failed guess")
        try await attempt(throttle, "user:1", .failed, clock: clock)
        try await attempt(throttle, "user:1", .failed, clock: clock)
        #expect(await isLocked(throttle, "user:1", clock: clock))
        #expect(await !isLocked(throttle, "user:2", clock: clock), "only that account")
        clock.advance(59_999)
        #expect(await isLocked(throttle, "user:1", clock: clock))
        clock.advance(1)
        #expect(await !isLocked(throttle, "user:1", clock: clock))
    }

    @Test func anAddressStaysCountedThroughSuccessesUnlessTheLimitIsOff() async throws {
        let clock = TestClock()
        let limited = LoginThrottle(maxFailures: 100, maxFailuresPerIP: 3, lockoutMilliseconds: 60_000)
        let unlimited = LoginThrottle(maxFailures: 100, maxFailuresPerIP: 0, lockoutMilliseconds: 60_000)
        for index in 0..<3 {
            for throttle in [limited, unlimited] {
                try await attempt(throttle, "user:7", .succeeded, clock: clock)
                try await attempt(throttle, "login:guess\(index)", .failed, clock: clock)
            }
        }
        #expect(
            await isLocked(limited, "user:7", clock: clock), "the attacker's own successes did not wash the address")
        #expect(await !isLocked(limited, "user:7", ip: "10.0.0.2", clock: clock))
        #expect(await !isLocked(unlimited, "user:7", clock: clock), "0 turns the per-address limit off")
    }
}
