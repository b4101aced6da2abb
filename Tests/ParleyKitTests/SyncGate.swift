import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import Synchronization

/// Real sockets to a real server, with a gate on the device's sync requests: the answer to
/// the next one can be held back (so that the server's pushes overtake a page it read before
/// them), and the next ones can be swallowed (so that a catch-up fails while the socket
/// stays up). Every other frame passes as it is.
final class SyncGate: RealtimeTransport {
    private struct State {
        var holdNext = false
        var dropNext = 0
        /// Ids of the sync requests whose answers are to be held.
        var holding: Set<String> = []
        var held: [(String, AsyncStream<SocketEvent>.Continuation)] = []
        var dropped = 0
        var requests = 0
        var opened = 0
        var events: [String] = []
    }

    private struct EventType: Decodable {
        var type: String
    }

    private let inner = NIOWebSocketTransport()
    private let state = Mutex(State())

    /// Holds the answer to the next sync request until ``release()``.
    func holdNextAnswer() { state.withLock { $0.holdNext = true } }

    /// Swallows the next `count` sync requests: they time out on the device.
    func dropNextRequests(_ count: Int) { state.withLock { $0.dropNext = count } }

    /// Answers held so far.
    var heldCount: Int { state.withLock { $0.held.count } }

    /// Sync requests swallowed so far.
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// The types of the events the server pushed so far (`settings.updated`, …), in order.
    var eventsPushed: [String] { state.withLock { $0.events } }

    /// Sync requests the device sent so far, swallowed ones included.
    var requestCount: Int { state.withLock { $0.requests } }

    /// Sockets opened so far.
    var openCount: Int { state.withLock { $0.opened } }

    /// Lets the held answers through, after everything that came since.
    func release() {
        let held = state.withLock { state in
            defer { state.held = [] }
            return state.held
        }
        for (text, continuation) in held { continuation.yield(.text(text)) }
    }

    func open(url: String) async throws -> any RealtimeSocket {
        let socket = try await inner.open(url: url)
        state.withLock { $0.opened += 1 }
        return GatedSocket(socket, gate: self)
    }

    /// Whether a frame the device sends goes to the server.
    fileprivate func passes(_ text: String) -> Bool {
        guard let frame = IncomingFrame(text: text), frame.type == ClientFrameType.sync.rawValue else { return true }
        return state.withLock { state in
            state.requests += 1
            if state.dropNext > 0 {
                state.dropNext -= 1
                state.dropped += 1
                return false
            }
            if state.holdNext, let id = frame.id {
                state.holdNext = false
                state.holding.insert(id)
            }
            return true
        }
    }

    /// Whether a frame the server sends reaches the device now (else it is held).
    fileprivate func delivers(_ text: String, to continuation: AsyncStream<SocketEvent>.Continuation) -> Bool {
        guard let frame = IncomingFrame(text: text) else { return true }
        let eventType =
            frame.type == ServerFrameType.event.rawValue ? (try? frame.payload(EventType.self))?.type : nil
        return state.withLock { state in
            if let eventType { state.events.append(eventType) }
            guard let id = frame.id, state.holding.remove(id) != nil else { return true }
            state.held.append((text, continuation))
            return false
        }
    }
}

/// One socket through a ``SyncGate``.
private final class GatedSocket: RealtimeSocket {
    let events: AsyncStream<SocketEvent>
    private let inner: any RealtimeSocket
    private let gate: SyncGate

    init(_ inner: any RealtimeSocket, gate: SyncGate) {
        self.inner = inner
        self.gate = gate
        let (events, continuation) = AsyncStream<SocketEvent>.makeStream()
        self.events = events
        Task {
            for await event in inner.events {
                if case .text(let text) = event, !gate.delivers(text, to: continuation) { continue }
                continuation.yield(event)
            }
            continuation.finish()
        }
    }

    func send(_ text: String) async throws {
        guard gate.passes(text) else { return }
        try await inner.send(text)
    }

    func close() async { await inner.close() }
}
