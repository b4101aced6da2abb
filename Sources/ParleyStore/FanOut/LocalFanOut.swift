import Synchronization

/// The fan-out of one node on its own (SQLite): what is published is handed to the
/// subscribers at once, in the order published. The SQLite store publishes each change from
/// its after-commit hook, which runs on the writer, so subscribers see commit order.
public final class LocalFanOut: FanOut {
    private let subscribers = Mutex<[@Sendable (FanOutItem) -> Void]>([])

    public init() {}

    public func subscribe(_ subscriber: @escaping @Sendable (FanOutItem) -> Void) {
        subscribers.withLock { $0.append(subscriber) }
    }

    /// Hands an item to every subscriber.
    public func deliver(_ item: FanOutItem) {
        for subscriber in subscribers.withLock({ $0 }) {
            subscriber(item)
        }
    }

    public func send(_ signal: Signal) async throws {
        try signal.validate()
        deliver(.signal(signal))
    }

    public func ready() async throws {}
}
