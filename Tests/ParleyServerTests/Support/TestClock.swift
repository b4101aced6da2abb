import ParleyServer
import Synchronization

/// A wall clock the test moves by hand.
final class TestClock: Sendable {
    let time: Mutex<Int64>
    init(_ start: Int64 = 1_000_000) { time = Mutex(start) }
    var wallClock: WallClock { WallClock { [self] in time.withLock { $0 } } }
    func advance(_ milliseconds: Int64) { time.withLock { $0 += milliseconds } }
}
