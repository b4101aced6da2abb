import ParleyCore

/// Token buckets shared by every node that serves the same data: each key holds up to
/// `burst` tokens and regains `perMillisecond` of one each millisecond.
public protocol RateLimitStore: Sendable {
    /// Takes one token from the bucket `key`, made full if new. Answers nil when it had one,
    /// else the milliseconds until it will.
    func takeToken(_ key: String, burst: Double, perMillisecond: Double, at now: Int64) async throws -> Int64?
}
