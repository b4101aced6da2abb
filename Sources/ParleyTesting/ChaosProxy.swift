import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on loopback that forwards to an upstream port and, on command, drops,
/// stalls or resets the connections passing through it: the flaky network of the chaos
/// tests. The upstream port can change (a server restarted elsewhere).
public final class ChaosProxy: Sendable {
    private final class Link: Sendable {
        let client: any Channel
        let server: any Channel
        let stalledUntil = Atomic<UInt64>(0)
        init(client: any Channel, server: any Channel) {
            self.client = client
            self.server = server
        }
    }

    public let port: Int
    private let upstreamPort: Atomic<Int>
    private let links = Mutex<[ObjectIdentifier: Link]>([:])
    private let listener: any Channel
    private let counters = Mutex<(accepted: Int, dropped: Int, reset: Int, stalled: Int)>((0, 0, 0, 0))

    private init(port: Int, upstreamPort: Int, listener: any Channel) {
        self.port = port
        self.upstreamPort = Atomic(upstreamPort)
        self.listener = listener
    }

    /// Starts listening on a free loopback port.
    public static func start(upstreamPort: Int) async throws -> ChaosProxy {
        let holder = ProxyHolder()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { channel in
                guard let proxy = holder.proxy else { return channel.close() }
                return proxy.connectUpstream(for: channel)
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = ChaosProxy(port: listener.localAddress?.port ?? 0, upstreamPort: upstreamPort, listener: listener)
        holder.proxy = proxy
        return proxy
    }

    public func setUpstreamPort(_ port: Int) { upstreamPort.store(port, ordering: .relaxed) }

    /// Connections that passed through, and how many were dropped, reset and stalled.
    public var statistics: (accepted: Int, dropped: Int, reset: Int, stalled: Int) { counters.withLock { $0 } }

    public var openConnections: Int { links.withLock { $0.count } }

    /// Closes a random connection on both sides (FIN).
    public func dropOne(using random: inout some RandomNumberGenerator) {
        guard let link = pick(using: &random) else { return }
        counters.withLock { $0.dropped += 1 }
        link.client.close(promise: nil)
        link.server.close(promise: nil)
    }

    /// Aborts a random connection with a TCP reset on the client side.
    public func resetOne(using random: inout some RandomNumberGenerator) {
        guard let link = pick(using: &random) else { return }
        counters.withLock { $0.reset += 1 }
        guard let provider = link.client as? any SocketOptionProvider else { return dropOne(using: &random) }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
            link.client.close(promise: nil)
            link.server.close(promise: nil)
        }
    }

    /// Stops forwarding on a random connection for a while (bytes wait, nothing is lost).
    public func stallOne(for duration: Duration, using random: inout some RandomNumberGenerator) {
        guard let link = pick(using: &random) else { return }
        counters.withLock { $0.stalled += 1 }
        let until =
            NIODeadline.now()
            + .nanoseconds(
                Int64(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000))
        link.stalledUntil.store(until.uptimeNanoseconds, ordering: .relaxed)
    }

    /// Closes every connection (the network went away for everyone).
    public func dropAll() {
        for link in links.withLock({ Array($0.values) }) {
            link.client.close(promise: nil)
            link.server.close(promise: nil)
        }
    }

    public func stop() async {
        dropAll()
        try? await listener.close()
    }

    private func pick(using random: inout some RandomNumberGenerator) -> Link? {
        let all = links.withLock { Array($0.values) }.sorted { ObjectIdentifier($0) < ObjectIdentifier($1) }
        return all.randomElement(using: &random)
    }

    private func connectUpstream(for client: any Channel) -> EventLoopFuture<Void> {
        counters.withLock { $0.accepted += 1 }
        let port = upstreamPort.load(ordering: .relaxed)
        return ClientBootstrap(group: client.eventLoop)
            .channelOption(ChannelOptions.autoRead, value: false)
            .connect(host: "127.0.0.1", port: port)
            .flatMap { server in
                let link = Link(client: client, server: server)
                let key = ObjectIdentifier(link)
                self.links.withLock { $0[key] = link }
                let forget: @Sendable (Result<Void, any Error>) -> Void = { _ in
                    _ = self.links.withLock { $0.removeValue(forKey: key) }
                    client.close(promise: nil)
                    server.close(promise: nil)
                }
                client.closeFuture.whenComplete(forget)
                server.closeFuture.whenComplete(forget)
                return client.pipeline.addHandler(Forwarder(peer: server, link: link)).flatMap {
                    server.pipeline.addHandler(Forwarder(peer: client, link: link))
                }
            }
            .flatMapError { _ in client.close() }
    }

    /// Moves bytes to the peer, waiting out stalls, reading only after each write is done.
    private final class Forwarder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let peer: any Channel
        let link: Link

        init(peer: any Channel, link: Link) {
            self.peer = peer
            self.link = link
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            let channel = context.channel
            let now = NIODeadline.now().uptimeNanoseconds
            let until = link.stalledUntil.load(ordering: .relaxed)
            let delay = until > now ? TimeAmount.nanoseconds(Int64(until - now)) : .zero
            let peer = self.peer
            context.eventLoop.scheduleTask(in: delay) {
                peer.writeAndFlush(buffer).whenComplete { result in
                    if case .failure = result { channel.close(promise: nil) } else { channel.read() }
                }
            }
        }

        /// Reading is manual (one read per completed write): start once the channel is active.
        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { context.read() }
        }

        func channelActive(context: ChannelHandlerContext) {
            context.read()
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            peer.close(promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

/// Lets the child-channel initialiser reach the proxy created after the bind.
private final class ProxyHolder: @unchecked Sendable {
    var proxy: ChaosProxy?
}
