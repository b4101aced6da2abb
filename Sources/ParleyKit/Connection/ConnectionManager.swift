import Foundation
import ParleyCore

/// Keeps one device's real-time socket alive: opens and authenticates it, pings it, notices
/// when it dies and reconnects with jittered exponential backoff, as the
/// ``ConnectionStateMachine`` decides. It also pairs requests with their answers.
///
/// Pushed frames (`message`, `event`, `receipt`) go to the push handler in arrival order;
/// after each successful (re)connection the connected handler runs, which is where the
/// engine resyncs and flushes its outbox.
public actor ConnectionManager {
    public typealias PushHandler = @Sendable (IncomingFrame) async -> Void
    public typealias ConnectedHandler = @Sendable () async -> Void

    private let url: String
    private let transport: any RealtimeTransport
    private let time: TimeSource
    private let token: @Sendable () async -> String?
    private let random: @Sendable () -> Double
    private var machine: ConnectionStateMachine
    private var socket: (any RealtimeSocket)?
    private var generation = 0
    private var heartbeatTimer: Task<Void, Never>?
    private var connectTimer: Task<Void, Never>?
    private var reconnectTimer: Task<Void, Never>?
    private var pending: [String: CheckedContinuation<IncomingFrame, any Error>] = [:]
    private var timeouts: [String: Task<Void, Never>] = [:]
    private var nextRequestID = 1
    private var observers: [Int: AsyncStream<ConnectionStatus>.Continuation] = [:]
    private var nextObserverID = 0
    private var onPush: PushHandler = { _ in }
    private var onConnected: ConnectedHandler = {}
    /// The status a UI shows.
    public private(set) var status: ConnectionStatus = .offline(reason: nil)
    /// What the server said when the socket last signed in (the user, the server's time and
    /// windows); nil before the first time.
    public private(set) var ready: ReadyPayload?

    public init(
        url: String, transport: any RealtimeTransport, configuration: ConnectionStateMachine.Configuration = .init(),
        time: TimeSource = .system, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        token: @escaping @Sendable () async -> String?
    ) {
        self.url = url
        self.transport = transport
        self.time = time
        self.random = random
        self.token = token
        self.machine = ConnectionStateMachine(configuration: configuration)
    }

    public func setHandlers(onPush: @escaping PushHandler, onConnected: @escaping ConnectedHandler) {
        self.onPush = onPush
        self.onConnected = onConnected
    }

    /// The internal state, for diagnostics and tests.
    public var state: ConnectionStateMachine.State { machine.state }

    /// Status changes, starting with the current status.
    public func statusUpdates() -> AsyncStream<ConnectionStatus> {
        let (stream, continuation) = AsyncStream<ConnectionStatus>.makeStream()
        let id = nextObserverID
        nextObserverID += 1
        observers[id] = continuation
        continuation.yield(status)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    private func removeObserver(_ id: Int) { observers[id] = nil }

    /// Go online and stay online.
    public func start() { apply(machine.start()) }

    /// Go offline; no reconnect follows (logout).
    public func stop() { apply(machine.stop()) }

    /// The app learnt the network is back: skip the rest of the backoff.
    public func networkAvailable() { apply(machine.networkAvailable()) }

    /// Sends a request frame and waits for the frame answering it.
    public func request<Payload: Codable & Sendable>(
        _ type: ClientFrameType, _ payload: Payload, timeout: Duration = .seconds(15)
    ) async throws -> IncomingFrame {
        guard case .connected = machine.state, let socket else {
            throw TransportError(.notConnected, "Not connected.")
        }
        let id = "k\(nextRequestID)"
        nextRequestID += 1
        let text = String(decoding: try JSONEncoder().encode(Frame(type, id: id, payload: payload)), as: UTF8.self)
        let time = self.time
        return try await withCheckedThrowingContinuation { continuation in
            pending[id] = continuation
            Task {
                do {
                    try await socket.send(text)
                } catch {
                    self.finishRequest(id, with: .failure(TransportError(.unreachable, "Send failed: \(error)")))
                }
            }
            timeouts[id] = Task {
                do { try await time.sleep(timeout) } catch { return }
                self.finishRequest(id, with: .failure(TransportError(.timedOut, "No answer within \(timeout).")))
            }
        }
    }

    /// Sends a request and decodes its result (throwing the server's ``ParleyError``).
    public func call<Payload: Codable & Sendable, Result: Decodable>(
        _ type: ClientFrameType, _ payload: Payload, as result: Result.Type = Result.self,
        timeout: Duration = .seconds(15)
    ) async throws -> Result {
        try await request(type, payload, timeout: timeout).result(Result.self)
    }

    private func finishRequest(_ id: String, with result: Result<IncomingFrame, any Error>) {
        timeouts.removeValue(forKey: id)?.cancel()
        pending.removeValue(forKey: id)?.resume(with: result)
    }

    private func failAllRequests(_ reason: String) {
        let waiting = pending
        pending = [:]
        for timeout in timeouts.values { timeout.cancel() }
        timeouts = [:]
        for continuation in waiting.values { continuation.resume(throwing: TransportError(.unreachable, reason)) }
    }

    // MARK: Performing actions

    private func apply(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions { perform(action) }
        let newStatus = ConnectionStatus(machine)
        if newStatus != status {
            status = newStatus
            for observer in observers.values { observer.yield(newStatus) }
        }
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .openSocket:
            generation += 1
            let generation = self.generation
            let transport = self.transport
            let url = self.url
            Task {
                do {
                    let socket = try await transport.open(url: url)
                    self.opened(socket, generation: generation)
                } catch {
                    self.closed(.networkError, generation: generation)
                }
            }
        case .sendAuth:
            guard let socket else { return }
            let token = self.token
            Task {
                let value = await token() ?? ""
                let frame = Frame(ClientFrameType.auth, id: "auth", payload: AuthPayload(token: value))
                try? await socket.send(String(decoding: try JSONEncoder().encode(frame), as: UTF8.self))
            }
        case .sendPing:
            guard let socket else { return }
            Task { try? await socket.send(#"{"type":"ping","id":"hb"}"#) }
        case .closeSocket:
            generation += 1
            let closing = socket
            socket = nil
            failAllRequests("The connection closed.")
            Task { await closing?.close() }
        case .scheduleHeartbeat(let delay):
            heartbeatTimer?.cancel()
            heartbeatTimer = timer(after: delay) { manager in await manager.heartbeatFired() }
        case .scheduleConnectTimeout(let delay):
            connectTimer?.cancel()
            connectTimer = timer(after: delay) { manager in await manager.connectTimerFired() }
        case .scheduleReconnect(let delay):
            reconnectTimer?.cancel()
            reconnectTimer = timer(after: delay) { manager in await manager.reconnectFired() }
        case .resync:
            let onConnected = self.onConnected
            Task { await onConnected() }
        case .cancelTimers:
            for timer in [heartbeatTimer, connectTimer, reconnectTimer] { timer?.cancel() }
            (heartbeatTimer, connectTimer, reconnectTimer) = (nil, nil, nil)
        }
    }

    private func timer(after delay: Duration, _ fire: @escaping @Sendable (ConnectionManager) async -> Void) -> Task<
        Void, Never
    > {
        let time = self.time
        return Task { [weak self] in
            do { try await time.sleep(delay) } catch { return }
            guard !Task.isCancelled, let self else { return }
            await fire(self)
        }
    }

    private func heartbeatFired() { apply(machine.heartbeatTick(now: time.now(), jitterSample: random())) }
    private func connectTimerFired() { apply(machine.connectTimedOut(jitterSample: random())) }
    private func reconnectFired() { apply(machine.reconnectTimerFired()) }

    // MARK: Socket events

    private func opened(_ socket: any RealtimeSocket, generation: Int) {
        guard generation == self.generation else {
            Task { await socket.close() }
            return
        }
        self.socket = socket
        let onPush = self.onPush
        Task {
            for await event in socket.events {
                switch event {
                case .text(let text):
                    guard let frame = IncomingFrame(text: text) else { continue }
                    // Answers go to their requests; every other frame is a push (stored changes
                    // and signals alike; one of a type nobody handles is ignored there).
                    switch frame.type {
                    case ServerFrameType.ready.rawValue, ServerFrameType.pong.rawValue,
                        ServerFrameType.result.rawValue, ServerFrameType.error.rawValue:
                        self.answered(frame, generation: generation)
                    default:
                        await onPush(frame)
                    }
                case .closed(let code):
                    self.closed(Self.reason(forCloseCode: code), generation: generation)
                }
            }
        }
        apply(machine.socketOpened())
    }

    private func answered(_ frame: IncomingFrame, generation: Int) {
        guard generation == self.generation else { return }
        switch (frame.type, frame.id) {
        case (ServerFrameType.ready.rawValue, _):
            ready = (try? frame.payload(ReadyPayload.self)) ?? ready
            apply(machine.authenticated(now: time.now()))
        case (ServerFrameType.error.rawValue, "auth"):
            // Only a refused token stops reconnecting; `unavailable` (the server cannot check
            // tokens or hear changes right now) is followed by close 1013 and retried.
            guard (try? frame.payload(ParleyError.self))?.code != .unavailable else { return }
            apply([.closeSocket] + machine.socketClosed(.authRejected, jitterSample: random()))
        case (ServerFrameType.pong.rawValue, "hb"):
            apply(machine.pongReceived(now: time.now()))
        case (_, let id?):
            finishRequest(id, with: .success(frame))
        default:
            break
        }
    }

    private func closed(_ reason: ConnectionStateMachine.CloseReason, generation: Int) {
        guard generation == self.generation else { return }
        socket = nil
        self.generation += 1
        failAllRequests("The connection closed.")
        apply(machine.socketClosed(reason, jitterSample: random()))
    }

    static func reason(forCloseCode code: Int?) -> ConnectionStateMachine.CloseReason {
        switch code {
        case CloseCode.unauthenticated.rawValue?: .authRejected
        case CloseCode.sessionRevoked.rawValue?: .sessionRevoked
        case nil: .networkError
        case let code: .serverClosed(code: code)
        }
    }
}
