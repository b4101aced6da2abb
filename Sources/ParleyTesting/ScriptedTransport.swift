import ParleyKit
import Synchronization

/// A real-time transport whose sockets a test plays the server of: it sees what the
/// client sent and decides what the server answers and when it closes.
public final class ScriptedTransport: RealtimeTransport {
    private let state = Mutex<(failNextOpens: Int, sockets: [ScriptedSocket], attempts: Int)>((0, [], 0))

    public init() {}

    /// Makes the next `count` attempts to open fail as a network error would.
    public func failNextOpens(_ count: Int) { state.withLock { $0.failNextOpens = count } }

    /// Sockets opened so far, oldest first.
    public var sockets: [ScriptedSocket] { state.withLock { $0.sockets } }

    /// Attempts to open, failed ones included.
    public var attempts: Int { state.withLock { $0.attempts } }

    public func open(url: String) async throws -> any RealtimeSocket {
        try state.withLock { state in
            state.attempts += 1
            if state.failNextOpens > 0 {
                state.failNextOpens -= 1
                throw TransportError(.unreachable, "scripted failure")
            }
            let socket = ScriptedSocket()
            state.sockets.append(socket)
            return socket
        }
    }
}

/// One scripted socket.
public final class ScriptedSocket: RealtimeSocket {
    public let events: AsyncStream<SocketEvent>
    private let continuation: AsyncStream<SocketEvent>.Continuation
    private let state = Mutex<(sent: [String], closed: Bool)>(([], false))

    init() {
        (events, continuation) = AsyncStream<SocketEvent>.makeStream()
    }

    /// Frames the client sent, in order.
    public var sent: [String] { state.withLock { $0.sent } }
    public var isClosed: Bool { state.withLock { $0.closed } }

    public func send(_ text: String) async throws {
        try state.withLock { state in
            guard !state.closed else { throw TransportError(.unreachable, "closed") }
            state.sent.append(text)
        }
    }

    public func close() async { serverCloses(code: 1000) }

    /// The server sends a frame.
    public func serverSends(_ text: String) { continuation.yield(.text(text)) }

    /// The server (or the network) ends the socket.
    public func serverCloses(code: Int?) {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        continuation.yield(.closed(code: code))
        continuation.finish()
    }
}
