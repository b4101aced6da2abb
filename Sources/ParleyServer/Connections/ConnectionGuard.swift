import NIOCore

/// The first handler of every connection, below HTTP: it notes each read in the
/// connection's ``ConnectionActivity`` and, until the connection becomes a WebSocket, closes
/// it when it stays silent or dribbles a request.
///
/// - Idle: nothing received or sent for `idleTimeout` (a client that connects and sends
///   nothing, or stops halfway through the headers or the body).
/// - Slow request: a request not answered within `requestTimeout` of its first byte (a
///   client that sends a byte now and then to stay clear of the idle timeout). A request
///   starts with the first byte read while none is open and ends with the first byte of
///   the response, since the server answers only requests it has read whole.
///
/// After the upgrade (``upgradedToWebSocket()``) the WebSocket heartbeat takes over.
///
/// When the server shuts down, a connection that never sent a byte is closed at once: HTTP's
/// own handler lets connections finish their requests, and would wait for this one's first
/// until the idle timeout, holding the shutdown that long.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    let activity = ConnectionActivity()
    private let idleTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    private var lastActivity = NIODeadline.now()
    private var requestStartedAt: NIODeadline?
    private var check: Scheduled<Void>?
    private var isWebSocket = false
    private var hasRead = false

    init(idleTimeout: TimeAmount, requestTimeout: TimeAmount) {
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        schedule(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = NIODeadline.now()
        activity.noteRead(now: now.uptimeNanoseconds)
        hasRead = true
        if !isWebSocket {
            lastActivity = now
            if requestStartedAt == nil { requestStartedAt = now }
        }
        context.fireChannelRead(data)
    }

    /// A request for more bytes that reached this handler: the handlers above (the reader's
    /// buffer) let it through, so the server is ready to read.
    func read(context: ChannelHandlerContext) {
        activity.noteReadRequested()
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, !hasRead {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !isWebSocket {
            lastActivity = .now()
            requestStartedAt = nil
        }
        context.write(data, promise: promise)
    }

    /// Stops the HTTP timeouts; answers the activity record the WebSocket heartbeat reads.
    func upgradedToWebSocket() -> ConnectionActivity {
        isWebSocket = true
        check?.cancel()
        check = nil
        return activity
    }

    /// Schedules the next look at the deadlines, at the earlier of the two.
    private func schedule(_ context: ChannelHandlerContext) {
        guard !isWebSocket else { return }
        var deadline = lastActivity + idleTimeout
        if let requestStartedAt { deadline = min(deadline, requestStartedAt + requestTimeout) }
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            check = nil
            guard !isWebSocket else { return }
            let now = NIODeadline.now()
            let idle = now >= lastActivity + idleTimeout
            let slow = requestStartedAt.map { now >= $0 + requestTimeout } ?? false
            if idle || slow {
                context.close(promise: nil)
            } else {
                schedule(context)
            }
        }
    }
}
