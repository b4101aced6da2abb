/// The streams one publisher (an actor, which keeps this as state) hands out: each
/// subscriber gets every value yielded after it subscribed, in the order yielded, with an
/// unbounded buffer so a slow reader loses nothing.
///
/// Deterministic for tests: a value yielded before ``yield(_:)`` returns is already in every
/// current subscriber's buffer.
struct Subscribers<Value: Sendable> {
    private var continuations: [Int: AsyncStream<Value>.Continuation] = [:]
    private var nextID = 0

    /// A new stream, starting with `initial` when given; `onTermination` gets its id when the
    /// reader stops, so the owner can call ``remove(_:)``.
    mutating func add(initial: Value? = nil, onTermination: @escaping @Sendable (Int) -> Void) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream()
        if let initial { continuation.yield(initial) }
        let id = nextID
        nextID += 1
        continuations[id] = continuation
        continuation.onTermination = { _ in onTermination(id) }
        return stream
    }

    mutating func remove(_ id: Int) { continuations[id] = nil }

    func yield(_ value: Value) {
        for continuation in continuations.values { continuation.yield(value) }
    }

    /// Ends every stream.
    mutating func finish() {
        for continuation in continuations.values { continuation.finish() }
        continuations = [:]
    }

    var isEmpty: Bool { continuations.isEmpty }
}
