import Foundation
import Logging
import NIOCore
import ParleyCore
import ParleyStore

/// Answers what clients send on their WebSockets: authentication, request frames, pings.
///
/// Each socket is served on its event loop by a ``GatewayChannelHandler``, which hands this
/// gateway whole frames. The gateway answers `auth` and `ping` itself; every other request
/// frame goes to the feature that registered it in ``FrameHandlers``. Requests on one socket
/// are answered one after another (``RequestInbox``), so a client's sends into a
/// conversation keep their order. Pushes come from the ``ConnectionHub``.
final class WebSocketGateway: Sendable {
    let hub: ConnectionHub
    let fanOut: any FanOut
    let accounts: AccountService
    let configuration: ServerConfiguration
    let clock: WallClock
    let metrics: ServerMetrics
    let logger: Logger
    /// Decodes client frames, dispatching payloads through the features' handlers.
    private let frameDecoder: JSONDecoder
    /// The features' handlers, for frames read without the decoder.
    private let handlers: FrameHandlers

    init(
        hub: ConnectionHub, fanOut: any FanOut, accounts: AccountService, handlers: FrameHandlers,
        configuration: ServerConfiguration, clock: WallClock, metrics: ServerMetrics, logger: Logger
    ) {
        self.hub = hub
        self.fanOut = fanOut
        self.accounts = accounts
        self.configuration = configuration
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        frameDecoder = handlers.makeDecoder()
        self.handlers = handlers
    }

    /// How long a peer sent a close frame has to answer it before its socket is closed.
    static let closeTimeout: Duration = .seconds(5)

    /// A socket was upgraded: the hub knows it from now on, and a token its upgrade request
    /// carried is checked before any frame it sends.
    func opened(_ connection: GatewayConnection, token: String?) {
        hub.register(connection)
        if let token { received(.token(token), on: connection) }
    }

    /// A request came on the socket: a task answers it after those before it, and answers
    /// the socket's requests until none is left.
    func received(_ request: RequestInbox.Request, on connection: GatewayConnection) {
        guard connection.requests.push(request) else { return }
        hub.requestsBegan()
        Task {
            await answerRequests(on: connection)
            hub.requestsEnded()
        }
    }

    /// The socket closed: the hub lets go of it and nothing more is answered or written.
    func closed(_ connection: GatewayConnection) {
        connection.requests.close()
        connection.queue.finish()
        hub.unregister(connection)
    }

    private func answerRequests(on connection: GatewayConnection) async {
        while let (request, belowBacklog) = connection.requests.take() {
            if belowBacklog { connection.resumeReading() }
            guard !connection.queue.isClosing else {
                connection.requests.close()
                connection.resumeReading()  // for the peer's answer to the close
                continue
            }
            switch request {
            case .token(let token):
                await authenticate(connection, token: token, requestId: nil)
            case .text(let text):
                await handle(text, on: connection)
            case .binary:
                reply(connection, .error, id: nil, ParleyError(.invalidJSON, "Frames must be JSON text, not binary."))
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
            frame =
                try ClientRequestFrame.fast(JSONSyntax.parse(text), handlers: handlers)
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
