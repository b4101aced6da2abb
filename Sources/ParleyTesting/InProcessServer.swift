import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ParleyServer
import ServiceLifecycle
import Testing

/// A Parley server run inside the test process on a fixed loopback port, which can be
/// stopped and started again on the same data directory (a restart).
///
/// A graceful shutdown that has not ended after ``shutdownLimit`` is cut short by
/// cancellation and recorded as a failure of the test that stopped the server: without a
/// limit, one connection that never closed held a whole CI run until CI's own time ran out,
/// and nothing named the test.
public final class InProcessServer: Sendable {
    /// Generous: CI's PostgreSQL run once took 10.8 s to stop a server.
    public static let shutdownLimit: Duration = .seconds(90)

    public let port: Int
    public let dataDirectory: String
    /// Whether it serves TLS (`https`, `wss`).
    public let usesTLS: Bool
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    public var url: String { "\(usesTLS ? "https" : "http")://127.0.0.1:\(port)" }

    private init(port: Int, dataDirectory: String, usesTLS: Bool, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.dataDirectory = dataDirectory
        self.usesTLS = usesTLS
        self.group = group
        self.task = task
    }

    /// Starts a server and waits until it accepts connections; it logs only critical
    /// messages unless given a `logger`.
    public static func start(
        port: Int? = nil, dataDirectory: String? = nil, clock: WallClock = .system, logger given: Logger? = nil,
        codes: (any CodeSender)? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> InProcessServer {
        var configuration = ServerConfiguration()
        // Port 0: the system picks a free one at bind time, so two tests starting at once
        // never get the same (a port chosen first and bound later could be taken meanwhile,
        // and the second server would then be talking to the first one's clients).
        configuration.port = port ?? 0
        configuration.dataDirectory = dataDirectory ?? temporaryDirectory()
        configuration.bcryptCost = 4
        TestBackend.configure(&configuration)
        configure(&configuration)
        var logger = given ?? Logger(label: "parley-test-server")
        if given == nil { logger.logLevel = .critical }
        let (listening, announce) = AsyncStream<Int>.makeStream()
        let app = try await buildApplication(configuration, clock: clock, logger: logger, codeSender: codes) {
            announce.yield($0)
        }
        var services = ServiceGroupConfiguration(services: [app], logger: logger)
        services.maximumGracefulShutdownDuration = shutdownLimit
        let group = ServiceGroup(configuration: services)
        let task = Task {
            defer { announce.finish() }
            try await group.run()
        }
        var ports = listening.makeAsyncIterator()
        guard let bound = await ports.next() else {
            try await task.value
            throw CancellationError()
        }
        return InProcessServer(
            port: bound, dataDirectory: configuration.dataDirectory, usesTLS: configuration.usesTLS, group: group,
            task: task)
    }

    /// Shuts down gracefully and waits until the port is free (see ``shutdownLimit``).
    public func stop() async {
        let start = ContinuousClock.now
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        let took = ContinuousClock.now - start
        if took >= Self.shutdownLimit {
            Issue.record("The server took \(took) to stop: its graceful shutdown did not end by itself.")
        }
    }
}

/// A loopback port nobody listens on right now, for a server that stops and starts again on
/// it (or for nothing to listen on).
///
/// It is drawn below Linux's ephemeral range (32768–60999), where the kernel never picks the
/// source port of an outgoing connection. A port from that range, free while its server is
/// down, could meanwhile become some client's source port, or the port of a connection to
/// itself (TCP's self-connect, when the port is dialled while nothing listens), and the
/// restarted server could not bind it: a chaos run once failed that way.
public func freePort() throws -> Int {
    for _ in 0..<200 {
        let port = Int.random(in: 20_000..<32_768)
        guard
            let channel = try? ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .bind(host: "127.0.0.1", port: port).wait()
        else { continue }
        try channel.close().wait()
        return port
    }
    throw FreePortError()
}

/// No port below the ephemeral range was free in 200 tries.
public struct FreePortError: Error {}
