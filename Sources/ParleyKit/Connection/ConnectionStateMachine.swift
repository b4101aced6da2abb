/// The connection lifecycle of one device, as a pure state machine (SPEC 4).
///
/// It does no I/O and reads no clock: the ``ConnectionManager`` feeds it events (socket
/// opened, authenticated, closed, heartbeat tick, pong, timer fired, network back, stop) with
/// the current time and a jitter sample, and performs the actions it returns. That makes every
/// path (heartbeat, pong timeout, backoff sequence, failure threshold, no reconnect after
/// logout) testable without a network or a real clock.
public struct ConnectionStateMachine: Sendable {
    /// Timing and retry policy.
    public struct Configuration: Sendable, Equatable {
        /// How often to ping while connected.
        public var heartbeatInterval: Duration = .seconds(20)
        /// How long to wait for the pong before declaring the socket dead.
        public var pongTimeout: Duration = .seconds(10)
        /// How long opening and authenticating may take.
        public var connectTimeout: Duration = .seconds(10)
        /// The second retry of a series waits this long (the first is immediate); each next one doubles.
        public var initialBackoff: Duration = .milliseconds(500)
        public var maxBackoff: Duration = .seconds(30)
        /// Fraction of each delay that is random (0 = none, 0.5 = ±25 %).
        public var jitter: Double = 0.5
        /// Consecutive failed attempts after which the status says the server is unreachable.
        public var failureThreshold = 5

        public init() {}
    }

    /// Why the last socket closed.
    public enum CloseReason: Sendable, Equatable {
        /// The app asked (logout, or stop).
        case user
        /// Opening or authenticating took too long.
        case timeout
        /// The server closed it, with this close code.
        case serverClosed(code: Int?)
        /// No pong within the pong timeout.
        case noPong
        /// The server rejected the credentials (close 4001 or an auth error).
        case authRejected
        /// The session was revoked (close 4002).
        case sessionRevoked
        /// The socket failed to open or broke (network error).
        case networkError
    }

    public enum State: Sendable, Equatable {
        case disconnected(CloseReason?)
        case connecting(attempt: Int)
        case authenticating(attempt: Int)
        case connected
        case waitingToReconnect(attempt: Int, delay: Duration, after: CloseReason)
    }

    /// What the manager must do next.
    public enum Action: Sendable, Equatable {
        case openSocket
        case sendAuth
        case sendPing
        /// Close the current socket (it is already considered gone).
        case closeSocket
        /// Call ``heartbeatTick(now:)`` after this delay.
        case scheduleHeartbeat(Duration)
        /// Call ``connectTimedOut()`` unless connected by then.
        case scheduleConnectTimeout(Duration)
        /// Call ``reconnectTimerFired()`` after this delay.
        case scheduleReconnect(Duration)
        /// Connected and authenticated: sync from the cursor and flush the outbox.
        case resync
        case cancelTimers
    }

    public let configuration: Configuration
    public private(set) var state: State = .disconnected(nil)
    /// Failed attempts since the last successful connection.
    public private(set) var consecutiveFailures = 0
    private var pingSentAt: Duration?

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// The app wants to be online.
    public mutating func start() -> [Action] {
        switch state {
        case .disconnected:
            consecutiveFailures = 0
            return beginAttempt(1)
        case .waitingToReconnect(let attempt, _, _):
            return beginAttempt(attempt)
        default:
            return []
        }
    }

    public mutating func socketOpened() -> [Action] {
        guard case .connecting(let attempt) = state else { return [] }
        state = .authenticating(attempt: attempt)
        return [.sendAuth]
    }

    public mutating func authenticated(now: Duration) -> [Action] {
        guard case .authenticating = state else { return [] }
        state = .connected
        consecutiveFailures = 0
        pingSentAt = nil
        return [.cancelTimers, .resync, .scheduleHeartbeat(configuration.heartbeatInterval)]
    }

    /// The socket closed or failed. `jitterSample` is a uniform random number in 0..<1.
    public mutating func socketClosed(_ reason: CloseReason, jitterSample: Double) -> [Action] {
        switch state {
        case .disconnected, .waitingToReconnect:
            return []
        case .connecting, .authenticating, .connected:
            return fail(reason, jitterSample: jitterSample)
        }
    }

    /// Opening or authenticating took longer than ``Configuration/connectTimeout``.
    public mutating func connectTimedOut(jitterSample: Double) -> [Action] {
        switch state {
        case .connecting, .authenticating:
            return [.closeSocket] + socketClosed(.timeout, jitterSample: jitterSample)
        default:
            return []
        }
    }

    /// Time to ping, or to notice the pong never came.
    public mutating func heartbeatTick(now: Duration, jitterSample: Double) -> [Action] {
        guard case .connected = state else { return [] }
        if let sentAt = pingSentAt {
            if now - sentAt >= configuration.pongTimeout {
                return [.closeSocket] + fail(.noPong, jitterSample: jitterSample)
            }
            return [.scheduleHeartbeat(configuration.pongTimeout - (now - sentAt))]
        }
        pingSentAt = now
        return [.sendPing, .scheduleHeartbeat(configuration.pongTimeout)]
    }

    /// Any frame from the server proves the socket alive; a pong ends the wait.
    public mutating func pongReceived(now: Duration) -> [Action] {
        guard case .connected = state, let sentAt = pingSentAt else { return [] }
        pingSentAt = nil
        let elapsed = now - sentAt
        let wait = configuration.heartbeatInterval > elapsed ? configuration.heartbeatInterval - elapsed : .zero
        return [.scheduleHeartbeat(wait)]
    }

    public mutating func reconnectTimerFired() -> [Action] {
        guard case .waitingToReconnect(let attempt, _, _) = state else { return [] }
        return beginAttempt(attempt)
    }

    /// The app learnt the network is back: retry now instead of waiting out the backoff.
    public mutating func networkAvailable() -> [Action] {
        guard case .waitingToReconnect(let attempt, _, _) = state else { return [] }
        return [.cancelTimers] + beginAttempt(attempt)
    }

    /// The app wants to be offline (logout, or going to the background).
    public mutating func stop() -> [Action] {
        let wasOpen: Bool
        switch state {
        case .disconnected: return []
        case .waitingToReconnect: wasOpen = false
        default: wasOpen = true
        }
        state = .disconnected(.user)
        pingSentAt = nil
        return [.cancelTimers] + (wasOpen ? [.closeSocket] : [])
    }

    /// The delay after `failures` consecutive failures: none after the first (the first retry
    /// is immediate), then `initialBackoff * 2^(failures-2)` capped at `maxBackoff`, with jitter.
    public func backoff(afterFailures failures: Int, jitterSample: Double) -> Duration {
        guard failures > 1 else { return .zero }
        let exponent = min(failures - 2, 30)
        let base = min(configuration.initialBackoff * (1 << exponent), configuration.maxBackoff)
        let spread = configuration.jitter * (jitterSample - 0.5)
        return base * (1 + spread)
    }

    private mutating func beginAttempt(_ attempt: Int) -> [Action] {
        state = .connecting(attempt: attempt)
        pingSentAt = nil
        return [.openSocket, .scheduleConnectTimeout(configuration.connectTimeout)]
    }

    /// Attempts are numbered from the first of a series (a fresh start, or the connection
    /// that just dropped), so the attempt after `n` consecutive failures is `n + 1`.
    private mutating func fail(_ reason: CloseReason, jitterSample: Double) -> [Action] {
        pingSentAt = nil
        switch reason {
        case .authRejected, .sessionRevoked, .user:
            state = .disconnected(reason)
            return [.cancelTimers]
        default:
            consecutiveFailures += 1
            let delay = backoff(afterFailures: consecutiveFailures, jitterSample: jitterSample)
            state = .waitingToReconnect(attempt: consecutiveFailures + 1, delay: delay, after: reason)
            return [.cancelTimers, .scheduleReconnect(delay)]
        }
    }
}
