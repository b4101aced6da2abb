import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// Runs one WebSocket connection: authentication, request frames, and the writers that
/// drain the connection's outbound queue while it holds something.
///
/// The gateway answers `auth` and `ping` itself; every other request frame goes to the
/// feature that registered it in ``FrameHandlers``. Requests on one socket are handled one
/// after another, so a client's sends into a conversation keep their order. Pushes come from
/// the ``ConnectionHub``.
struct WebSocketGateway: Sendable {
    let hub: ConnectionHub
    let fanOut: any FanOut
    let accounts: AccountService
    let configuration: ServerConfiguration
    let clock: WallClock
    let metrics: ServerMetrics
    /// Decodes client frames, dispatching payloads through the features' handlers.
    private let frameDecoder: JSONDecoder
    /// The features' handlers, for frames read without the decoder.
    private let handlers: FrameHandlers

    init(
        hub: ConnectionHub, fanOut: any FanOut, accounts: AccountService, handlers: FrameHandlers,
        configuration: ServerConfiguration, clock: WallClock, metrics: ServerMetrics
    ) {
        self.hub = hub
        self.fanOut = fanOut
        self.accounts = accounts
        self.configuration = configuration
        self.clock = clock
        self.metrics = metrics
        frameDecoder = handlers.makeDecoder()
        self.handlers = handlers
    }

    /// Serves the socket until it closes. A read that fails for a protocol reason (invalid
    /// UTF-8, a message too large) is rethrown, so that the WebSocket layer closes with the
    /// code RFC 6455 gives it (1007, 1009).
    func run(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        context: WebSocketRouterContext<ParleyRequestContext>
    ) async throws {
        let channel = context.requestContext.channel
        let activity = await Self.takeOver(channel, logger: context.logger)
        let connection = GatewayConnection(
            tag: hub.makeTag(), queueLimit: configuration.outboundQueueLimit, activity: activity, channel: channel)
        connection.queue.startWriters { [metrics, logger = context.logger] in
            Task { await Self.write(connection, to: outbound, metrics: metrics, logger: logger) }
        }
        hub.register(connection)
        defer {
            hub.unregister(connection)
            connection.queue.finish()
        }
        if let token = context.request.bearerToken ?? context.request.uri.queryParameters.get("access_token") {
            await authenticate(connection, token: token, requestId: nil)
        }
        let readError: (any Error)? = await withGracefulShutdownHandler {
            let readError = await read(inbound, on: connection, logger: context.logger)
            // The writer must be done before the WebSocket layer closes the socket: a close the
            // queue kept (an error's) goes out first. A cancelled connection does not wait for
            // a peer that is not reading: closing the channel fails the write in progress.
            await withTaskCancellationHandler {
                await connection.queue.finishAndWaitForWriter()
            } onCancel: {
                connection.abort()
            }
            return readError
        } onGracefulShutdown: {
            // The WebSocket layer sends the close frame (1000); the peer gets the close timeout
            // to answer it.
            connection.abort(after: Self.closeTimeout)
        }
        if let readError { throw readError }
    }

    /// How long a peer sent a close frame has to answer it before its socket is closed.
    static let closeTimeout: Duration = .seconds(5)

    /// Reads request frames until the socket or the queue closes; answers the error that
    /// ended the read, if one did.
    private func read(_ inbound: WebSocketInboundStream, on connection: GatewayConnection, logger: Logger) async
        -> (any Error)?
    {
        do {
            for try await message in inbound.messages(maxSize: Limits.maxTransportFrameBytes) {
                guard !connection.queue.isClosing else { break }
                switch message {
                case .text(let text): await handle(text, on: connection)
                case .binary:
                    reply(
                        connection, .error, id: nil,
                        ParleyError(.invalidJSON, "Frames must be JSON text, not binary."))
                }
            }
        } catch {
            logger.debug("WebSocket read ended", metadata: ["error": "\(error)"])
            return error
        }
        return nil
    }

    /// Ends the HTTP timeouts of the upgraded connection and answers the record of its reads,
    /// which the connection's ``ConnectionGuard`` keeps (so pings count as a sign of life).
    private static func takeOver(_ channel: any Channel, logger: Logger) async -> ConnectionActivity {
        do {
            return try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.handler(type: ConnectionGuard.self).upgradedToWebSocket()
            }.get()
        } catch {
            // A closed channel has no handlers left; its socket ends at the first read.
            logger.debug("WebSocket without a connection guard", metadata: ["error": "\(error)"])
            return ConnectionActivity()
        }
    }

    /// Writes what the queue holds until it has nothing more, then ends: the queue starts
    /// another writer when more comes. Each write is noted on the connection, so the hub's
    /// sweep can abort a peer that stopped reading. After a failed write nothing more is
    /// written (``OutboundQueue/abandon()``).
    private static func write(
        _ connection: GatewayConnection, to outbound: WebSocketOutboundWriter, metrics: ServerMetrics, logger: Logger
    ) async {
        let queue = connection.queue
        while let item = queue.take() {
            connection.writeBegan()
            defer { connection.writeEnded() }
            do {
                switch item {
                case .frame(let text, let queuedAt):
                    try await outbound.write(.text(text))
                    metrics.deliveryLatency.record(.nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds &- queuedAt)))
                case .close(let code, let reason):
                    try await outbound.close(WebSocketErrorCode(codeNumber: code.rawValue), reason: reason)
                    connection.abort(after: closeTimeout)
                }
            } catch {
                logger.debug("WebSocket write ended", metadata: ["error": "\(error)"])
                queue.abandon()
            }
        }
    }

    private func handle(_ text: String, on connection: GatewayConnection) async {
        guard text.utf8.count <= Limits.maxFrameBytes else {
            reply(
                connection, .error, id: nil,
                ParleyError(.payloadTooLarge, "Frames may be at most \(Limits.maxFrameBytes) bytes."))
            return
        }
        let frame: ClientRequestFrame
        do {
            try JSONSyntax.check(text)
            frame =
                try ClientRequestFrame.fast(text, handlers: handlers)
                ?? frameDecoder.decode(Strict<ClientRequestFrame>.self, from: Data(text.utf8)).value
        } catch {
            reply(connection, .error, id: nil, ParleyError(decoding: error))
            return
        }
        do {
            try await dispatch(frame, on: connection)
        } catch {
            let parleyError =
                ParleyError(requestFailure: error) ?? (error as? RetryLaterError)?.error
                ?? ParleyError(.internalError, "The server failed to handle the frame.")
            reply(connection, .error, id: frame.id, parleyError)
        }
    }

    /// Answers one request. A frame that failed to decode throws its error here: at once for
    /// `ping`, `auth` and unknown types, and for the rest only once the socket is authenticated.
    private func dispatch(_ frame: ClientRequestFrame, on connection: GatewayConnection) async throws {
        let id = frame.id
        switch frame.kind {
        case .ping?:
            reply(connection, .pong, id: id, EmptyPayload?.none)
            return
        case .auth?:
            if case .auth(let payload) = try frame.request.get() {
                guard connection.identity == nil else {
                    // One socket is one session: a second identity would mix two users' pushes.
                    throw ParleyError(
                        .alreadyAuthenticated, "This socket is already authenticated; open another for another session."
                    )
                }
                await authenticate(connection, token: payload.token, requestId: id)
            }
            return
        case nil:
            _ = try frame.request.get()
        case .feature?:
            break
        }
        guard let identity = connection.identity else {
            reply(connection, .error, id: id, ParleyError(.unauthenticated, "Send an auth frame first."))
            connection.queue.closeAfterQueued(.unauthenticated, reason: "Not authenticated.")
            return
        }
        if case .feature(let prepared) = try frame.request.get() {
            connection.queue.enqueue(
                try await prepared(FrameRequest(id: id, identity: identity, origin: connection.tag)))
        }
    }

    private func authenticate(_ connection: GatewayConnection, token: String, requestId: String?) async {
        do {
            let identity = try await accounts.authenticate(accessToken: token)
            let user = try await accounts.user(identity.userId)
            // `ready` promises every push from now on: only once this node hears every change.
            try await fanOut.ready()
            hub.attach(connection, as: identity)
            reply(
                connection, .ready, id: requestId,
                ReadyPayload(
                    user: user, sessionId: identity.sessionId, serverTime: clock.now(),
                    heartbeatTimeoutMs: configuration.heartbeatTimeout.milliseconds,
                    recallWindowMs: configuration.messageWindows.recallMs,
                    editWindowMs: configuration.messageWindows.editMs))
        } catch let error as ParleyError where error.code != .unavailable {
            reply(connection, .error, id: requestId, error)
            connection.queue.closeAfterQueued(.unauthenticated, reason: error.message)
        } catch {
            // Not the token's fault (the store or the fan-out failed): the client should try
            // again, not log in.
            let unavailable = ParleyError(.unavailable, "The server cannot check tokens right now; reconnect later.")
            reply(connection, .error, id: requestId, unavailable)
            connection.queue.closeAfterQueued(.tryAgainLater, reason: unavailable.message)
        }
    }

    private func reply<Payload: Codable & Sendable>(
        _ connection: GatewayConnection, _ type: ServerFrameType, id: String?, _ payload: Payload?
    ) {
        do {
            connection.queue.enqueue(try JSONText.encode(Frame(type, id: id, payload: payload)))
        } catch {
            connection.queue.close(.slowConsumer, reason: "Internal encoding failure.")
        }
    }
}
