import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import ParleyCore
import ServiceLifecycle

/// Serves HTTP/1.1 on a connection and upgrades a request for the WebSocket endpoint to the
/// gateway's channel handler (``GatewayChannelHandler``): a socket is then served on its
/// event loop, with no task of its own.
///
/// Hummingbird's `HTTP1WebSocketUpgradeChannel` hands each socket to an async handler, whose
/// task keeps the stack its deepest call chain grew for as long as the socket lives (about
/// 21 KiB of an idle socket's 32; BENCHMARKS.md, "A writer only while there is something to
/// write"), and every frame in and out then crosses a task. This channel is that one with
/// the upgrade's last step replaced.
///
/// An upgrade request goes through the WebSocket router first, as a `GET` of its own, so
/// that its middleware answers it as it answers HTTP: a request it does not answer with 200
/// is not upgraded and gets 400.
struct GatewayUpgradeChannel: HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// The socket is the gateway's now; nothing is left to run.
        case webSocket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    private let upgradeResponder: RouterResponder<ParleyRequestContext>
    private let gateway: WebSocketGateway
    private let http1 = HTTP1Channel.Configuration()

    /// - Parameters:
    ///   - responder: Answers every HTTP request that is not an upgrade.
    ///   - upgradeResponder: Answers upgrade requests: 200 upgrades.
    init(
        responder: @escaping HTTPChannelHandler.Responder, upgradeResponder: RouterResponder<ParleyRequestContext>,
        gateway: WebSocketGateway
    ) {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.upgradeResponder = upgradeResponder
        self.gateway = gateway
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let upgradeAttempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: Limits.maxTransportFrameBytes,
                shouldUpgrade: { [upgradeResponder] channel, head in
                    upgradeAttempted.value = true
                    let promise = channel.eventLoop.makePromise(of: HTTPHeaders?.self)
                    promise.completeWithTask {
                        let request = Request(
                            head: try HTTPRequest(head, secure: false, splitCookie: false), body: .init(buffer: .init())
                        )
                        let context = ParleyRequestContext(source: .init(channel: channel, logger: logger))
                        guard let response = try? await upgradeResponder.respond(to: request, context: context),
                            response.status == .ok
                        else { return nil }
                        return HTTPHeaders(response.headers)
                    }
                    return promise.futureResult
                },
                upgradePipelineHandler: { [gateway] channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        let request = try HTTPRequest(head, secure: false, splitCookie: false)
                        let token = Request(head: request, body: .init(buffer: .init())).webSocketToken
                        try channel.pipeline.syncOperations.addHandler(
                            GatewayChannelHandler(gateway: gateway, token: token))
                        return UpgradeResult.webSocket
                    }
                })
            let serverUpgrade = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { [http1] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandlers(http1.additionalChannelHandlers())
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(
                                idleTimeout: http1.idleTimeout.map { Duration($0) }, logger: logger))
                        let asyncChannel = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                        return upgradeAttempted.value ? .failedUpgrade(asyncChannel) : .notUpgraded(asyncChannel)
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(
                upgradeConfiguration: serverUpgrade)
            configuration.enablePipelining = false  // NIOAsyncChannel pipelines HTTP
            configuration.enableErrorHandling = false  // Hummingbird answers errors
            configuration.enableResponseHeaderValidation = false  // HTTPTypes validated the headers
            configuration.decoderConfiguration.maxHeaderFieldSize = http1.httpDecoder.maxHeaderFieldSize
            configuration.decoderConfiguration.maxHeaderListSize = http1.httpDecoder.maxHeaderListSize
            configuration.decoderConfiguration.maxHeaderFieldCount = http1.httpDecoder.maxHeaderFieldCount
            let upgradeResult = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                configuration: configuration)
            return Value(upgradeResult: upgradeResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .webSocket:
                // A socket upgraded after the server began to stop missed the quiesce event
                // that closes the others with 1000: it gets its own.
                if Task.isShuttingDownGracefully {
                    value.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
                }
            case .notUpgraded(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .failedUpgrade(let http):
                logger.debug("WebSocket upgrade refused")
                await Self.refuseUpgrade(on: http, logger: logger)
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("Connection closed before its first request")
        } catch {
            logger.debug("Connection setup failed", metadata: ["error": "\(error)"])
        }
    }

    /// Answers an upgrade the router refused with 400 and closes the connection.
    private static func refuseUpgrade(on http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, logger: Logger) async
    {
        do {
            try await http.executeThenClose { _, outbound in
                let head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
            }
        } catch {
            logger.trace("Refusing an upgrade failed", metadata: ["error": "\(error)"])
        }
    }

    /// NIO upgrades only a connection's first request. A later request on a kept-alive
    /// connection that asks for an upgrade is redirected to the same URI with the connection
    /// closed, so the client asks again on a new one.
    private static func redirectingLateUpgrades(_ responder: @escaping HTTPChannelHandler.Responder)
        -> HTTPChannelHandler.Responder
    {
        struct RedirectedToUpgrade: Error {}
        return { request, writer, channel in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                return try await responder(request, writer, channel)
            }
            var location = request.uri.path
            if let query = request.uri.query { location += "?\(query)" }
            try await writer.writeResponse(
                HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: location]))
            throw RedirectedToUpgrade()
        }
    }
}

extension Request {
    /// The token an upgrade request carries, in its `Authorization` header or its
    /// `access_token` query parameter (browsers cannot set headers on a WebSocket).
    var webSocketToken: String? { bearerToken ?? uri.queryParameters.get("access_token") }
}
