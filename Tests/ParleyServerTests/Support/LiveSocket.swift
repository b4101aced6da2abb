import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOWebSocket
import ParleyCore
import Synchronization

/// A frame received from the server, with its raw JSON for typed decoding.
struct ReceivedFrame: Sendable {
    let type: String
    let id: String?
    let text: String

    func payload<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(Envelope<T>.self, from: Data(text.utf8)).payload
    }

    private struct Envelope<T: Decodable>: Decodable {
        var payload: T
    }
}

/// A real WebSocket connection to the server under test. Frames received are collected;
/// tests wait for the ones they expect.
final class LiveSocket: Sendable {
    private let outgoing: AsyncStream<WebSocketOutboundWriter.OutboundFrame>.Continuation
    private let frames = Mutex<[ReceivedFrame]>([])
    private let closeFrame = Mutex<(done: Bool, code: Int?)>((false, nil))
    private let nextId = Atomic<Int>(1)
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    private init(outgoing: AsyncStream<WebSocketOutboundWriter.OutboundFrame>.Continuation) { self.outgoing = outgoing }

    /// Connects; with `token`, authenticates with an `auth` frame and waits for `ready`.
    static func connect(_ url: String, token: String? = nil) async throws -> LiveSocket {
        let (stream, continuation) = AsyncStream<WebSocketOutboundWriter.OutboundFrame>.makeStream()
        let socket = LiveSocket(outgoing: continuation)
        let logger = Logger(label: "test-ws")
        let task = Task {
            do {
                let close = try await WebSocketClient.connect(
                    url: url, configuration: .init(maxFrameSize: 1 << 20), logger: logger
                ) {
                    inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await frame in stream { try await outbound.write(frame) }
                            try await outbound.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: 1 << 22) {
                            if case .text(let text) = message { socket.received(text) }
                        }
                        group.cancelAll()
                    }
                }
                socket.closeFrame.withLock { $0 = (true, close.map { Self.code($0.closeCode) }) }
            } catch {
                socket.closeFrame.withLock { $0 = (true, nil) }
            }
        }
        socket.task.withLock { $0 = task }
        if let token {
            let ready = try await socket.request(.auth, AuthPayload(token: token))
            guard ready.type == "ready" else { throw TestFailure("auth failed: \(ready.text)") }
        }
        return socket
    }

    private static func code(_ code: WebSocketErrorCode) -> Int {
        switch code {
        case .normalClosure: 1000
        case .goingAway: 1001
        case .protocolError: 1002
        case .dataInconsistentWithMessage: 1007
        case .messageTooLarge: 1009
        case .unexpectedServerError: 1011
        case .unknown(let value): Int(value)
        default: -1
        }
    }

    private func received(_ text: String) {
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(text.utf8)) else { return }
        frames.withLock { $0.append(ReceivedFrame(type: header.type, id: header.id, text: text)) }
    }

    private struct Header: Decodable {
        var type: String
        var id: String?
    }

    /// Sends raw text.
    func sendRaw(_ text: String) { outgoing.yield(.text(text)) }

    /// Sends a WebSocket ping control frame (not a Parley `ping`).
    func sendControlPing() { outgoing.yield(.custom(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer()))) }

    /// Sends a text frame holding exactly `bytes`, valid UTF-8 or not.
    func sendTextBytes(_ bytes: [UInt8]) {
        sendFrame(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: bytes)))
    }

    /// Sends one frame as it is (the client masks it): a fragment, a control frame.
    func sendFrame(_ frame: WebSocketFrame) { outgoing.yield(.custom(frame)) }

    /// How long a wait lasts by default. It matters only when a test fails, so it is generous:
    /// in the first two minutes of CI's PostgreSQL phase, with the whole suite starting at
    /// once, tests that take a second alone take 60–95 s, and an `auth` once went unanswered
    /// for over 30 s there (as `eventually`'s 90 s say).
    static let patience: Duration = .seconds(90)

    /// Sends a frame and waits for the answer with the same id (`result`, `error`, `ready`, `pong`).
    @discardableResult
    func request<P: Codable & Sendable>(_ type: ClientFrameType, _ payload: P, timeout: Duration = LiveSocket.patience)
        async throws
        -> ReceivedFrame
    {
        let id = "r\(nextId.wrappingAdd(1, ordering: .relaxed).oldValue)"
        sendRaw(String(decoding: try JSONEncoder().encode(Frame(type, id: id, payload: payload)), as: UTF8.self))
        return try await waitFor(timeout: timeout) { $0.id == id }
    }

    /// Sends a request and decodes its `result`, throwing the `error` payload.
    func call<P: Codable & Sendable, R: Decodable>(_ type: ClientFrameType, _ payload: P, as result: R.Type = R.self)
        async throws -> R
    {
        let frame = try await request(type, payload)
        if frame.type == "error" { throw try frame.payload(ParleyError.self) }
        return try frame.payload(R.self)
    }

    /// All frames so far.
    var received: [ReceivedFrame] { frames.withLock { $0 } }

    /// Takes (removes) all frames received so far.
    func drain() -> [ReceivedFrame] {
        frames.withLock { frames in
            defer { frames = [] }
            return frames
        }
    }

    /// Waits until a frame matching `predicate` arrives.
    func waitFor(timeout: Duration = LiveSocket.patience, _ predicate: (ReceivedFrame) -> Bool) async throws
        -> ReceivedFrame
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let frame = frames.withLock({ $0.first(where: predicate) }) { return frame }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("timed out waiting for a frame; have \(received.map(\.text).suffix(5))")
    }

    /// Waits until the server closes the socket and returns the close code.
    func waitForClose(timeout: Duration = LiveSocket.patience) async throws -> Int? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let state = closeFrame.withLock { $0 }
            if state.done { return state.code }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("socket was not closed")
    }

    var isClosed: Bool { closeFrame.withLock { $0.done } }

    /// Closes from the client side and waits until the connection is gone.
    func close() async {
        outgoing.finish()
        _ = try? await waitForClose()
    }

    /// Drops the connection without a close handshake (as a lost network would).
    func drop() async {
        task.withLock { $0 }?.cancel()
        outgoing.finish()
        _ = try? await waitForClose()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
