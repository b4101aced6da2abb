import NIOCore
import NIOPosix

/// A loopback port that accepts connections and reads what comes, but never answers: a
/// server too busy or too stuck to reply, for testing how long a client waits.
public final class SilentServer: Sendable {
    private let channel: any Channel

    /// The loopback port it listens on.
    public var port: Int { channel.localAddress?.port ?? 0 }

    /// `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }

    public init() async throws {
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Stops listening and drops every connection it accepted.
    public func stop() async {
        try? await channel.close()
    }
}
