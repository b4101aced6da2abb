import NIOCore
import ParleyCore
import ParleyStore
import Synchronization

/// One WebSocket connection: who it belongs to once authenticated, when it last heard
/// from its client, and its outbound queue.
final class GatewayConnection: Sendable {
    let tag: ConnectionTag
    let queue: OutboundQueue
    let openedAt: UInt64
    private let lastReceived: Atomic<UInt64>
    private let identityBox = Mutex<Identity?>(nil)

    init(tag: ConnectionTag, queueLimit: Int, now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        self.tag = tag
        self.queue = OutboundQueue(limit: queueLimit)
        self.openedAt = now
        self.lastReceived = Atomic(now)
    }

    var identity: Identity? { identityBox.withLock { $0 } }

    func authenticate(as identity: Identity) { identityBox.withLock { $0 = identity } }

    /// Notes that a frame arrived (any frame counts as a heartbeat).
    func touch(now: UInt64 = NIODeadline.now().uptimeNanoseconds) { lastReceived.store(now, ordering: .relaxed) }

    var lastReceivedAt: UInt64 { lastReceived.load(ordering: .relaxed) }
}
