import NIOCore
import Synchronization

/// When a connection last received bytes, and whether the server is reading from it at all,
/// shared between the connection's ``ConnectionGuard`` (which notes every read, whatever it
/// holds: a request, a WebSocket frame, a ping, and every request for more) and the
/// WebSocket gateway's heartbeat sweep (which asks for ``silence(now:)``).
///
/// The channel asks the socket for more bytes only while the server's reader keeps up:
/// when it falls behind (a loaded machine), the channel holds reads back and the client's
/// frames wait in the kernel. That time is not the client's silence.
final class ConnectionActivity: Sendable {
    private let lastRead: Atomic<UInt64>
    /// When the channel last asked for more bytes; 0 from the next bytes until it asks again
    /// (it holds reads back while the server's reader is behind).
    private let readRequested: Atomic<UInt64>

    init(now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        lastRead = Atomic(now)
        readRequested = Atomic(now)
    }

    /// Notes that bytes arrived: until the channel asks for more, it is not reading.
    func noteRead(now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        lastRead.store(now, ordering: .relaxed)
        readRequested.store(0, ordering: .relaxed)
    }

    /// Notes that the channel asked the socket for more bytes.
    func noteReadRequested(now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        readRequested.store(now, ordering: .relaxed)
    }

    /// Monotonic nanoseconds of the last read.
    var lastReadAt: UInt64 { lastRead.load(ordering: .relaxed) }

    /// Nanoseconds the client has sent nothing while the server was ready to read it; nil
    /// while the server holds reads back.
    func silence(now: UInt64) -> UInt64? {
        let requested = readRequested.load(ordering: .relaxed)
        guard requested != 0 else { return nil }
        let since = max(requested, lastReadAt)
        return now > since ? now - since : 0
    }
}
