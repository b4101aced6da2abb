import NIOCore
import ParleyCore
import ParleyStore
import Synchronization

/// One WebSocket connection: who it belongs to once authenticated, when it last heard
/// from its client, whether a write to it is stuck, the requests it has not answered yet,
/// and its outbound queue.
final class GatewayConnection: Sendable {
    let tag: ConnectionTag
    let queue: OutboundQueue
    let requests = RequestInbox()
    let openedAt: UInt64
    /// Every read on the socket, noted below the WebSocket layer, so any frame counts as a
    /// sign of life: data, ping or pong.
    let activity: ConnectionActivity
    /// When the write in progress began (monotonic nanoseconds); 0 when none is.
    private let writeStarted = Atomic<UInt64>(0)
    private let channel: (any Channel)?
    private let identityBox = Mutex<Identity?>(nil)

    init(
        tag: ConnectionTag, queueLimit: Int, activity: ConnectionActivity? = nil,
        channel: (any Channel)? = nil, now: UInt64 = NIODeadline.now().uptimeNanoseconds
    ) {
        self.tag = tag
        self.queue = OutboundQueue(limit: queueLimit)
        self.activity = activity ?? ConnectionActivity(now: now)
        self.channel = channel
        self.openedAt = now
    }

    var identity: Identity? { identityBox.withLock { $0 } }

    func authenticate(as identity: Identity) { identityBox.withLock { $0 = identity } }

    /// How long the client has been silent while the server was ready to read it (nil while
    /// the server's reader is behind; see ``ConnectionActivity``).
    func silence(now: UInt64) -> UInt64? { activity.silence(now: now) }

    /// Calls `act` with the silence if the client is still silent past `limit` (by `now` or
    /// later), as the socket's event loop and then the kernel see it: a loop busy with other
    /// sockets (a flood on a debug build, a starved machine) may leave frames waiting unread
    /// in the kernel for seconds, and that is not the client's silence. The kernel says when
    /// data last arrived (`TCP_INFO`), whether or not the loop has read it yet.
    func whenSilent(beyond limit: UInt64, now: UInt64, _ act: @escaping @Sendable (UInt64) -> Void) {
        let check: @Sendable () -> Void = { [self] in
            let later = max(now, NIODeadline.now().uptimeNanoseconds)
            guard let silence = silence(now: later), silence > limit else { return }
            Self.kernelSilence(of: channel) { kernel in
                if let kernel, kernel <= limit { return }
                act(silence)
            }
        }
        if let channel { channel.eventLoop.execute(check) } else { check() }
    }

    /// Answers nanoseconds since the kernel last received data on `channel`'s TCP socket, or
    /// nil where that is unknown (no socket, not TCP, not Linux). On the channel's event loop
    /// the answer comes at once.
    private static func kernelSilence(of channel: (any Channel)?, _ answer: @escaping @Sendable (UInt64?) -> Void) {
        #if os(Linux)
            guard let provider = channel as? any SocketOptionProvider else { return answer(nil) }
            provider.getTCPInfo().whenComplete { result in
                answer((try? result.get()).map { UInt64($0.tcpi_last_data_recv) * 1_000_000 })
            }
        #else
            answer(nil)
        #endif
    }

    /// Notes that a write to the socket began.
    func writeBegan(now: UInt64 = NIODeadline.now().uptimeNanoseconds) { writeStarted.store(now, ordering: .relaxed) }

    /// Notes that the write in progress completed.
    func writeEnded() { writeStarted.store(0, ordering: .relaxed) }

    /// When the write in progress began, or nil when the writer is not writing.
    var writeInProgressSince: UInt64? {
        let started = writeStarted.load(ordering: .relaxed)
        return started == 0 ? nil : started
    }

    /// Asks the socket for more bytes: its handler held reads back while ``requests`` was
    /// backlogged, and it no longer is.
    func resumeReading() { channel?.read() }

    /// Closes the socket at once, below the WebSocket layer: for a peer that stopped reading,
    /// which no close frame would reach. The reader and writer then end with errors.
    func abort() { channel?.close(promise: nil) }

    /// Closes the socket below the WebSocket layer after `delay`, unless it closed before:
    /// once a close frame went out, a peer that never answers it (gone without a FIN, or
    /// not reading) must not keep the connection, or a graceful shutdown, waiting.
    func abort(after delay: Duration) {
        guard let channel else { return }
        channel.eventLoop.scheduleTask(in: TimeAmount(delay)) { channel.close(promise: nil) }
    }
}
