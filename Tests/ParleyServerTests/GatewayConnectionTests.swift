import NIOCore
import NIOPosix
import ParleyStore
import Synchronization
import Testing

@testable import ParleyServer

/// The heartbeat's last check, on a real TCP socket: what the kernel received counts as a
/// sign of life even when the event loop has not read it yet.
@Suite struct GatewayConnectionTests {
    /// The server's end of one loopback connection, on an event loop of its own, and the
    /// client's end.
    struct Connection {
        let group: MultiThreadedEventLoopGroup
        let server: any Channel
        let client: RawTCPSocket
        let listener: any Channel
    }

    static func connect() async throws -> Connection {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let accepted = group.next().makePromise(of: (any Channel).self)
        let listener = try await ServerBootstrap(group: group)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { channel in
                accepted.succeed(channel)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = try RawTCPSocket(port: listener.localAddress!.port!)
        return Connection(
            group: group, server: try await accepted.futureResult.get(), client: client, listener: listener)
    }

    /// Runs the heartbeat's check for a connection whose reader noted nothing for 10 s, and
    /// answers whether it found the client silent past `limit`.
    static func foundSilent(_ connection: Connection, beyond limit: Duration) async throws -> Bool {
        let now = NIODeadline.now().uptimeNanoseconds
        let gateway = GatewayConnection(
            tag: ConnectionTag(1), queueLimit: 8, activity: ConnectionActivity(now: now - 10_000_000_000),
            channel: connection.server, now: now)
        let acted = Atomic(false)
        gateway.whenSilent(beyond: UInt64(limit.milliseconds) * 1_000_000, now: now) { _ in
            acted.store(true, ordering: .relaxed)
        }
        // The check ran on the loop before this task does.
        try await connection.server.eventLoop.submit {}.get()
        return acted.load(ordering: .relaxed)
    }

    @Test func bytesTheKernelReceivedButTheLoopDidNotReadAreNoSilence() async throws {
        let connection = try await Self.connect()
        #expect(connection.client.send("ping"))
        // The loop never reads (no auto-read), as when it is busy with other sockets.
        #expect(try await !Self.foundSilent(connection, beyond: .seconds(2)), "data came just now")
        try await Task.sleep(for: .milliseconds(600))
        #expect(
            try await Self.foundSilent(connection, beyond: .milliseconds(300)),
            "nothing came in the last 600 ms: the client is silent")
        try await connection.server.close()
        try await connection.listener.close()
        try await connection.group.shutdownGracefully()
    }
}
