import Foundation

/// The time source of the services, in milliseconds since 1970; injected so tests can move it.
public struct WallClock: Sendable {
    public let now: @Sendable () -> Int64

    public init(now: @escaping @Sendable () -> Int64) { self.now = now }

    /// The system clock.
    public static let system = WallClock { Int64(Date().timeIntervalSince1970 * 1000) }
}
