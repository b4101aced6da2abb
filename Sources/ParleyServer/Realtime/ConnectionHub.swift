import Foundation
import Logging
import NIOCore
import ParleyCore
import ParleyStore
import ServiceLifecycle
import Synchronization

/// The server node's registry of live sockets and the fan-out of committed changes to them.
///
/// It subscribes to the node's ``FanOut`` and so sees changes in commit order, and signals as
/// they come; each frame is encoded once and queued on every recipient device's connection
/// without waiting.
/// As a service it also sweeps connections that failed to authenticate or went silent.
final class ConnectionHub: Service, Sendable {
    private struct Registry {
        var connections: [ConnectionTag: GatewayConnection] = [:]
        var byUser: [UserID: Set<ConnectionTag>] = [:]
        var bySession: [SessionID: Set<ConnectionTag>] = [:]
    }

    private let registry = Mutex(Registry())
    private let nextTag = Atomic<UInt64>(1)
    /// Tasks answering sockets' requests (``requestsBegan()``), which a shutdown waits for.
    private let requestTasks = Atomic<Int>(0)
    private let heartbeatTimeout: UInt64
    private let authenticationTimeout: UInt64
    private let writeTimeout: UInt64
    private let sweepInterval: Duration
    private let logger: Logger
    private let metrics: ServerMetrics
    /// Told when a user's device authenticates here or leaves.
    private let presence: PresenceTracker?

    init(
        fanOut: any FanOut, configuration: ServerConfiguration, metrics: ServerMetrics, logger: Logger,
        presence: PresenceTracker? = nil
    ) {
        self.metrics = metrics
        self.presence = presence
        heartbeatTimeout = UInt64(configuration.heartbeatTimeout.milliseconds) * 1_000_000
        authenticationTimeout = UInt64(configuration.authenticationTimeout.milliseconds) * 1_000_000
        writeTimeout = UInt64(configuration.writeTimeout.milliseconds) * 1_000_000
        sweepInterval = min(.seconds(1), configuration.heartbeatTimeout / 4, configuration.writeTimeout / 4)
        self.logger = logger
        fanOut.subscribe { [weak self] item in self?.deliver(item) }
    }

    /// A fresh tag for a new connection.
    func makeTag() -> ConnectionTag {
        ConnectionTag(nextTag.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    func register(_ connection: GatewayConnection) {
        registry.withLock { $0.connections[connection.tag] = connection }
        metrics.connections.increment()
    }

    /// Starts routing the user's changes to an authenticated connection; answers false, and
    /// attaches nothing, when the connection closed meanwhile (its token was checked while
    /// it closed).
    @discardableResult
    func attach(_ connection: GatewayConnection, as identity: Identity) -> Bool {
        // Presence is told under the registry's lock, so that an unregister of the same
        // connection, on its event loop, cannot tell it the device left before it came.
        registry.withLock { registry in
            guard registry.connections[connection.tag] != nil else { return false }
            connection.authenticate(as: identity)
            registry.byUser[identity.userId, default: []].insert(connection.tag)
            registry.bySession[identity.sessionId, default: []].insert(connection.tag)
            presence?.connected(identity.userId)
            return true
        }
    }

    /// Forgets a connection; a second call for the same one does nothing.
    func unregister(_ connection: GatewayConnection) {
        let removed = registry.withLock { registry -> Bool in
            guard registry.connections.removeValue(forKey: connection.tag) != nil else { return false }
            if let identity = connection.identity {
                registry.byUser[identity.userId]?.remove(connection.tag)
                if registry.byUser[identity.userId]?.isEmpty == true { registry.byUser[identity.userId] = nil }
                registry.bySession[identity.sessionId]?.remove(connection.tag)
                if registry.bySession[identity.sessionId]?.isEmpty == true {
                    registry.bySession[identity.sessionId] = nil
                }
                presence?.disconnected(identity.userId)
            }
            return true
        }
        if removed { metrics.connections.decrement() }
    }

    /// Number of open sockets, authenticated or not.
    var connectionCount: Int { registry.withLock { $0.connections.count } }

    /// Routes what the fan-out delivers to the devices that must hear of it.
    func deliver(_ item: FanOutItem) {
        switch item {
        case .stored(let change):
            deliver(change)
        case .signal(let signal):
            send(signal.type, to: signal.recipients) {
                try JSONText.encode(Frame(type: signal.type, payload: signal.payload))
            }
        }
    }

    /// Routes one committed change to the devices that must hear of it.
    func deliver(_ change: StoreChange) {
        switch change {
        case .message(let message, let recipients, let origin):
            let unhurried = message.kind == .system && recipients.count > Self.crowd
            let queued = send(ServerFrameType.message.rawValue, to: recipients, except: origin, unhurried: unhurried) {
                try MessageFrames.push(message)
            }
            metrics.deliveries.increment(by: Int64(queued))
        case .events(let eventsByUser):
            for (userId, events) in eventsByUser {
                for event in events {
                    send(ServerFrameType.event.rawValue, to: [userId]) { #"{"type":"event","payload":"# + event + "}" }
                }
            }
        case .read(let receipt, let recipients):
            send(ServerFrameType.receipt.rawValue, to: recipients.filter { $0 != receipt.userId }) {
                try JSONText.encode(Frame(.receipt, payload: receipt))
            }
        case .delivered(let receipt, let recipients):
            send(ServerFrameType.delivered.rawValue, to: recipients.filter { $0 != receipt.userId }) {
                try JSONText.encode(Frame(ServerFrameType.delivered, payload: receipt))
            }
        case .sessionRevoked(let sessionId):
            let connections = registry.withLock { registry in
                (registry.bySession[sessionId] ?? []).compactMap { registry.connections[$0] }
            }
            for connection in connections { connection.queue.close(.sessionRevoked, reason: "Session revoked.") }
        case .resyncRequired:
            let connections = registry.withLock { Array($0.connections.values) }
            for connection in connections {
                connection.queue.close(
                    .resyncRequired, reason: "This node may have missed changes; reconnect and sync.")
            }
        }
    }

    /// A system notice (a join, a rename) to more members than this is queued unhurried
    /// (``OutboundQueue/enqueue(_:now:unhurried:)``): when many come at once, as when a large
    /// group grows, each socket gets several in one write instead of a write each.
    static let crowd = 100

    /// Queues one frame, encoded only if some device is to get it, on the users' connections;
    /// answers how many queued it.
    @discardableResult
    private func send(
        _ type: String, to users: [UserID], except origin: ConnectionTag? = nil, unhurried: Bool = false,
        encode: () throws -> String
    ) -> Int {
        let connections = registry.withLock { registry in
            users.flatMap { registry.byUser[$0] ?? [] }.compactMap { $0 == origin ? nil : registry.connections[$0] }
        }
        guard !connections.isEmpty else { return 0 }
        let text: String
        do {
            text = try encode()
        } catch {
            logger.error("Cannot encode frame", metadata: ["type": "\(type)", "error": "\(error)"])
            return 0
        }
        var queued = 0
        let now = NIODeadline.now().uptimeNanoseconds
        for connection in connections {
            switch connection.queue.enqueue(text, now: now, unhurried: unhurried) {
            case .queued: queued += 1
            case .overflowed: metrics.queueOverflows.increment()
            case .closing: break
            }
        }
        return queued
    }

    /// Closes connections that did not authenticate in time or stopped sending, and aborts
    /// those whose peer stopped reading (a write stuck past the write timeout).
    ///
    /// Sockets note their reads concurrently with the sweep, so a read may be later than
    /// `now`: it counts as no time elapsed.
    func sweep(now: UInt64 = NIODeadline.now().uptimeNanoseconds) {
        let connections = registry.withLock { Array($0.connections.values) }
        for connection in connections {
            if let started = connection.writeInProgressSince, Self.elapsed(since: started, now: now) > writeTimeout {
                logger.debug("Aborting a socket whose peer stopped reading", metadata: ["tag": "\(connection.tag)"])
                metrics.stuckWriteAborts.increment()
                connection.abort()
            } else if connection.identity == nil {
                if Self.elapsed(since: connection.openedAt, now: now) > authenticationTimeout {
                    connection.queue.close(.unauthenticated, reason: "No auth frame in time.")
                }
            } else if connection.silence(now: now).map({ $0 > heartbeatTimeout }) == true,
                !connection.queue.isClosing
            {
                // Silent by this sweep's clock; the socket's event loop has the last word.
                connection.whenSilent(beyond: heartbeatTimeout, now: now) { [logger] silence in
                    logger.debug(
                        "Closing a socket silent past the heartbeat timeout",
                        metadata: ["tag": "\(connection.tag)", "silentMs": "\(silence / 1_000_000)"])
                    connection.queue.close(.heartbeatTimeout, reason: "No frame within the heartbeat timeout.")
                }
            }
        }
    }

    /// Nanoseconds from `then` to `now`; zero when `then` is the later of the two.
    static func elapsed(since then: UInt64, now: UInt64) -> UInt64 { now > then ? now - then : 0 }

    /// A task began answering a socket's requests.
    func requestsBegan() { requestTasks.add(1, ordering: .relaxed) }

    /// A task that answered a socket's requests ended.
    func requestsEnded() { requestTasks.subtract(1, ordering: .relaxed) }

    /// Sweeps until a graceful shutdown; then waits up to ``drainLimit`` for the sockets to
    /// close and for the requests still being answered (a send in its commit), so that the
    /// services stopped after the hub, the store last, are not stopped under them. By then
    /// the HTTP server, which stops first, has sent every socket its close frame (1000), and
    /// a peer that does not answer it is cut off after the close timeout; but the server
    /// stops without waiting for sockets, which hold no task of its.
    func run() async throws {
        let interval = sweepInterval
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: interval)
                self.sweep()
            }
        }
        let deadline = ContinuousClock.now + Self.drainLimit
        while connectionCount > 0 || requestTasks.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline,
            !Task.isCancelled
        {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// How long a shutdown waits for sockets to close and requests to be answered: the close
    /// timeout, and then some.
    static let drainLimit: Duration = WebSocketGateway.closeTimeout + .seconds(5)
}
