/// A token bucket's state and its one rule: refill by the time passed (never backwards, so
/// that nodes whose clocks differ a little cannot drain it), then take a token if there is one.
public struct TokenBucket: Sendable, Hashable {
    public var tokens: Double
    public var updatedAt: Int64

    /// How far below a whole token still counts as one: refills in floating point may land a
    /// hair short (1,800,000 ms at 2 an hour gives 0.99999999…).
    public static let tolerance = 1e-6

    public init(tokens: Double, updatedAt: Int64) {
        self.tokens = tokens
        self.updatedAt = updatedAt
    }

    /// Takes a token at `now`: nil when there was one, else the milliseconds until there will be.
    public mutating func take(burst: Double, perMillisecond: Double, at now: Int64) -> Int64? {
        tokens = min(burst, tokens + Double(max(0, now - updatedAt)) * perMillisecond)
        updatedAt = max(updatedAt, now)
        guard tokens >= 1 - Self.tolerance else {
            return max(1, Int64(((1 - Self.tolerance - tokens) / perMillisecond).rounded(.up)))
        }
        tokens = max(0, tokens - 1)
        return nil
    }

    /// Whether the bucket is full again by `now`, so that forgetting it changes nothing.
    public func isFull(burst: Double, perMillisecond: Double, at now: Int64) -> Bool {
        tokens + Double(max(0, now - updatedAt)) * perMillisecond >= burst
    }
}
