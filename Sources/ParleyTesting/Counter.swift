import Synchronization

/// A counter shared between test tasks.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public func increment() { value.add(1, ordering: .relaxed) }
    public var current: Int { value.load(ordering: .relaxed) }
}
