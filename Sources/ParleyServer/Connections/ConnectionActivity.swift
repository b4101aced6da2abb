import NIOCore
import Synchronization

/// When a connection last received bytes, shared between the connection's ``ConnectionGuard``
/// (which notes every read, whatever it holds: a request, a WebSocket frame, a ping) and
/// the WebSocket gateway's heartbeat sweep (which reads it).
final class ConnectionActivity: Sendable {
    private let lastRead: Atomic<UInt64>

    init(now: UInt64 = NIODeadline.now().uptimeNanoseconds) { lastRead = Atomic(now) }

    /// Notes that bytes arrived.
    func noteRead(now: UInt64 = NIODeadline.now().uptimeNanoseconds) { lastRead.store(now, ordering: .relaxed) }

    /// Monotonic nanoseconds of the last read.
    var lastReadAt: UInt64 { lastRead.load(ordering: .relaxed) }
}
