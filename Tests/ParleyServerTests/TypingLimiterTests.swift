import ParleyCore
import Testing

@testable import ParleyServer

/// Which typing frames go on: refreshes a little early still do, a flood does not.
@Suite struct TypingLimiterTests {
    let second: UInt64 = 1_000_000_000

    @Test func aRefreshALittleEarlyGoesOutAndAFloodDoesNot() {
        let limiter = TypingLimiter()
        let (alice, group, other) = (UserID(1), ConversationID(7), ConversationID(8))
        #expect(limiter.admit(true, from: alice, in: group, now: 100 * second))
        #expect(!limiter.admit(true, from: alice, in: group, now: 100 * second + second))
        #expect(limiter.admit(true, from: alice, in: other, now: 100 * second + second), "per conversation")
        // The client's refresh is 3 s; one that comes 0.2 s early is still forwarded.
        #expect(limiter.admit(true, from: alice, in: group, now: 100 * second + 28 * second / 10))
        #expect(limiter.admit(false, from: alice, in: group, now: 104 * second))
        #expect(!limiter.admit(false, from: alice, in: group, now: 104 * second), "one stop per start")
        #expect(limiter.admit(true, from: alice, in: group, now: 104 * second), "a start after a stop goes out at once")
    }
}
