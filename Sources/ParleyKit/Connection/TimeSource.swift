/// Monotonic time and sleeping, injected so tests can drive time by hand.
public struct TimeSource: Sendable {
    /// Time since an arbitrary fixed origin; never goes backwards.
    public var now: @Sendable () -> Duration
    /// Suspends for the duration; throws when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The process's continuous clock.
    public static let system: TimeSource = {
        let clock = ContinuousClock()
        let origin = clock.now
        return TimeSource(now: { clock.now - origin }, sleep: { try await Task.sleep(for: $0) })
    }()
}
