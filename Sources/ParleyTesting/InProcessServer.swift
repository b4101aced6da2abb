import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ParleyServer
import ServiceLifecycle

/// A Parley server run inside the test process on a fixed loopback port, which can be
/// stopped and started again on the same data directory (a restart).
public final class InProcessServer: Sendable {
    public let port: Int
    public let dataDirectory: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    public var url: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, dataDirectory: String, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.dataDirectory = dataDirectory
        self.group = group
        self.task = task
    }

    /// Starts a server and waits until it accepts connections.
    public static func start(
        port: Int? = nil, dataDirectory: String? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> InProcessServer {
        var configuration = ServerConfiguration()
        configuration.port = try port ?? freePort()
        configuration.dataDirectory = dataDirectory ?? temporaryDirectory()
        configuration.bcryptCost = 4
        TestBackend.configure(&configuration)
        configure(&configuration)
        var logger = Logger(label: "parley-test-server")
        logger.logLevel = .critical
        let app = try await buildApplication(configuration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        let server = InProcessServer(
            port: configuration.port, dataDirectory: configuration.dataDirectory, group: group, task: task)
        try await waitUntilListening(port: configuration.port)
        return server
    }

    /// Shuts down gracefully and waits until the port is free.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }

    private static func waitUntilListening(port: Int) async throws {
        for _ in 0..<500 {
            if let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get()
            {
                try? await channel.close()
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CancellationError()
    }
}

/// A loopback port nobody listens on right now.
public func freePort() throws -> Int {
    let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
        .bind(host: "127.0.0.1", port: 0).wait()
    let port = channel.localAddress?.port ?? 0
    try channel.close().wait()
    return port
}

/// A fresh empty directory under the system's temporary directory.
public func temporaryDirectory() -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
