import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import ParleyCore
import ParleyStore
import ParleyStorePostgres
import ParleyStoreSQLite
import ServiceLifecycle

/// Builds the Parley server: storage, services, HTTP routes and the WebSocket gateway.
///
/// `parley serve` runs what this returns; tests run the same application in-process.
/// `onListening` hears the port the server bound (the one chosen for port 0). `codeSender`,
/// when given, delivers every verification code instead of the configured senders (tests).
public func buildApplication(
    _ configuration: ServerConfiguration, clock: WallClock = .system, logger: Logger = Logger(label: "parley"),
    codeSender: (any CodeSender)? = nil, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let codeSenders = try codeSender.map { CodeSenders(email: $0, phone: $0) } ?? CodeSenders(configuration)
    let words = try configuration.sensitiveWordsPath.map(WordFilter.init(path:)) ?? WordFilter()
    let storage = try await Storage.open(configuration, logger: logger)
    // After the last step that may fail: a reloader is registered until its service ends.
    let reloaders = configuration.sensitiveWordsPath == nil ? [] : [WordListReloader(filter: words, logger: logger)]
    let pusher: any Pusher =
        if let apns = configuration.apns {
            try await APNsPusher(configuration: apns, clock: clock, logger: logger)
        } else {
            LogPusher(logger: logger)
        }
    let parts = ServerParts(
        storage: storage, configuration: configuration, clock: clock, logger: logger, words: words, pusher: pusher,
        codeSenders: codeSenders)

    let securityHeaders = SecurityHeadersMiddleware(
        allowedOrigins: Set(configuration.corsOrigins), usesTLS: configuration.usesTLS)
    let router = Router(context: ParleyRequestContext.self)
    router.add(middleware: securityHeaders)
    router.add(middleware: ErrorMiddleware())
    parts.addRoutes(to: router)

    // Upgrade requests pass the same middleware as HTTP; the route answers 200 to upgrade.
    let webSocketRouter = Router(context: ParleyRequestContext.self)
    webSocketRouter.add(middleware: securityHeaders)
    webSocketRouter.add(middleware: ErrorMiddleware())
    webSocketRouter.get(RouterPath(Endpoint.webSocket.routerPath)) { _, _ in HTTPResponse.Status.ok }
    let upgradeResponder = webSocketRouter.buildResponder()
    let limiter = ConnectionLimiter(limit: configuration.maxConnectionsPerIP)
    let gateway = parts.gateway
    var server = HTTPServerBuilder { responder in
        GuardedChildChannel(
            base: GatewayUpgradeChannel(responder: responder, upgradeResponder: upgradeResponder, gateway: gateway),
            limiter: limiter, idleTimeout: .nanoseconds(Int64(configuration.idleTimeout.milliseconds) * 1_000_000),
            requestTimeout: .nanoseconds(Int64(configuration.requestTimeout.milliseconds) * 1_000_000))
    }
    if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        server = try .tls(server, tlsConfiguration: tls)
    }
    return Application(
        router: router,
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Parley"),
        // Started in this order and stopped in reverse: the store closes last.
        services: [StoreCloser(store: storage.store)] + storage.services
            + [parts.hub, parts.presenceTracker, parts.pushes, parts.searchIndexer, parts.fileSweeper] + reloaders,
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}
