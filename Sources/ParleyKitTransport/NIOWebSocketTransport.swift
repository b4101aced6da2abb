import Foundation
import HummingbirdWSClient
import Logging
import NIOSSL
import NIOWebSocket
import ParleyKit
import Synchronization

/// ParleyKit's default real-time transport: a WebSocket over SwiftNIO.
public struct NIOWebSocketTransport: RealtimeTransport {
    let tlsConfiguration: TLSConfiguration?

    /// `tlsConfiguration` for `wss://` URLs: trust roots and the like (the system's default
    /// when nil). A `wss://` URL must name its server by host name, not IP address: the
    /// WebSocket client sends the host as the TLS server name (SNI), which cannot be an address.
    public init(tlsConfiguration: TLSConfiguration? = nil) { self.tlsConfiguration = tlsConfiguration }

    public func open(url: String) async throws -> any RealtimeSocket {
        try await NIOWebSocket.open(url: url, tlsConfiguration: tlsConfiguration)
    }
}

/// One NIO WebSocket, bridged to ``RealtimeSocket``: frames out through a stream the
/// connection's handler drains, events in through a stream it fills.
final class NIOWebSocket: RealtimeSocket {
    let events: AsyncStream<SocketEvent>
    private let eventContinuation: AsyncStream<SocketEvent>.Continuation
    private let outgoing: AsyncStream<String>.Continuation
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init(
        events: AsyncStream<SocketEvent>, eventContinuation: AsyncStream<SocketEvent>.Continuation,
        outgoing: AsyncStream<String>.Continuation
    ) {
        self.events = events
        self.eventContinuation = eventContinuation
        self.outgoing = outgoing
    }

    static func open(url: String, tlsConfiguration: TLSConfiguration?) async throws -> NIOWebSocket {
        let (events, eventContinuation) = AsyncStream<SocketEvent>.makeStream()
        let (outgoingStream, outgoing) = AsyncStream<String>.makeStream()
        let socket = NIOWebSocket(events: events, eventContinuation: eventContinuation, outgoing: outgoing)
        let opened = OpenSignal()
        let task = Task {
            var logger = Logger(label: "parley.ws")
            logger.logLevel = .critical
            var code: Int?
            do {
                let close = try await WebSocketClient.connect(
                    url: url, configuration: .init(maxFrameSize: 1 << 20, autoPing: .disabled),
                    tlsConfiguration: tlsConfiguration, logger: logger
                ) { inbound, outbound, _ in
                    opened.signal(.success(()))
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in outgoingStream { try await outbound.write(.text(text)) }
                            try? await outbound.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: 1 << 22) {
                            if case .text(let text) = message { eventContinuation.yield(.text(text)) }
                        }
                        group.cancelAll()
                    }
                }
                code = close.map { Self.number($0.closeCode) }
                opened.signal(.failure(CancellationError()))
            } catch {
                opened.signal(.failure(error))
            }
            eventContinuation.yield(.closed(code: code))
            eventContinuation.finish()
        }
        socket.task.withLock { $0 = task }
        try await opened.wait()
        return socket
    }

    func send(_ text: String) async throws {
        outgoing.yield(text)
    }

    func close() async {
        outgoing.finish()
        let task = self.task.withLock { $0 }
        Task {
            try? await Task.sleep(for: .seconds(2))
            task?.cancel()
        }
        await task?.value
    }

    static func number(_ code: WebSocketErrorCode) -> Int {
        switch code {
        case .normalClosure: 1000
        case .goingAway: 1001
        case .protocolError: 1002
        case .unacceptableData: 1003
        case .dataInconsistentWithMessage: 1007
        case .policyViolation: 1008
        case .messageTooLarge: 1009
        case .missingExtension: 1010
        case .unexpectedServerError: 1011
        case .unknown(let value): Int(value)
        }
    }
}

/// Resolves `open` once the handshake succeeded or failed, whichever comes first.
private final class OpenSignal: Sendable {
    private let state = Mutex<(result: Result<Void, any Error>?, waiter: CheckedContinuation<Void, any Error>?)>(
        (nil, nil))

    func signal(_ result: Result<Void, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Void, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
