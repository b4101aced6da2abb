import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import ParleyCore
import ParleyStore

/// Runs one WebSocket connection: authentication, request frames, and the writer that
/// drains the connection's outbound queue.
///
/// Requests on one socket are handled one after another, so a client's sends into a
/// conversation keep their order. Pushes come from the ``ConnectionHub``.
struct WebSocketGateway: Sendable {
    let hub: ConnectionHub
    let accounts: AccountService
    let messaging: MessagingService
    let configuration: ServerConfiguration
    let clock: WallClock
    let metrics: ServerMetrics

    func run(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        context: WebSocketRouterContext<ParleyRequestContext>
    ) async {
        let connection = GatewayConnection(tag: hub.makeTag(), queueLimit: configuration.outboundQueueLimit)
        hub.register(connection)
        defer {
            hub.unregister(connection)
            connection.queue.finish()
        }
        if let token = context.request.bearerToken ?? context.request.uri.queryParameters.get("access_token") {
            await authenticate(connection, token: token, requestId: nil)
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await Self.write(connection.queue, to: outbound, metrics: metrics, logger: context.logger) }
            do {
                for try await message in inbound.messages(maxSize: Limits.maxTransportFrameBytes) {
                    connection.touch()
                    guard !connection.queue.isClosing else { break }
                    switch message {
                    case .text(let text): await handle(text, on: connection)
                    case .binary:
                        reply(connection, .error, id: nil, ParleyError(.invalidJSON, "Frames must be JSON text, not binary."))
                    }
                }
            } catch {
                context.logger.debug("WebSocket read ended", metadata: ["error": "\(error)"])
            }
            connection.queue.finish()
            await group.waitForAll()
        }
    }

    /// Drains the queue onto the socket until it finishes or a close is requested.
    private static func write(_ queue: OutboundQueue, to outbound: WebSocketOutboundWriter, metrics: ServerMetrics, logger: Logger) async {
        do {
            while let item = await queue.next() {
                switch item {
                case .frame(let text, let queuedAt):
                    try await outbound.write(.text(text))
                    metrics.deliveryLatency.record(.nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds &- queuedAt)))
                case .close(let code, let reason):
                    try await outbound.close(WebSocketErrorCode(codeNumber: code.rawValue), reason: reason)
                    return
                }
            }
        } catch {
            logger.debug("WebSocket write ended", metadata: ["error": "\(error)"])
            queue.finish()
        }
    }

    private func handle(_ text: String, on connection: GatewayConnection) async {
        guard text.utf8.count <= Limits.maxFrameBytes else {
            reply(connection, .error, id: nil, ParleyError(.payloadTooLarge, "Frames may be at most \(Limits.maxFrameBytes) bytes."))
            return
        }
        let data = Data(text.utf8)
        let header: FrameHeader
        do {
            header = try JSONDecoder().decode(Strict<FrameHeader>.self, from: data).value
        } catch {
            reply(connection, .error, id: nil, ParleyError(decoding: error))
            return
        }
        guard let type = ClientFrameType(rawValue: header.type) else {
            reply(connection, .error, id: header.id, ParleyError(.unknownFrameType, "Unknown frame type '\(header.type)'."))
            return
        }
        do {
            try await dispatch(type, header: header, data: data, on: connection)
        } catch let error as ParleyError {
            reply(connection, .error, id: header.id, error)
        } catch let error as DecodingError {
            reply(connection, .error, id: header.id, ParleyError(decoding: error))
        } catch let error as UnknownFieldError {
            reply(connection, .error, id: header.id, ParleyError(decoding: error))
        } catch {
            reply(connection, .error, id: header.id, ParleyError(.internalError, "The server failed to handle the frame."))
        }
    }

    private func dispatch(_ type: ClientFrameType, header: FrameHeader, data: Data, on connection: GatewayConnection)
        async throws
    {
        if type == .ping {
            reply(connection, .pong, id: header.id, EmptyPayload?.none)
            return
        }
        if type == .auth {
            let payload = try Self.payload(AuthPayload.self, from: data)
            await authenticate(connection, token: payload.token, requestId: header.id)
            return
        }
        guard let identity = connection.identity else {
            reply(connection, .error, id: header.id, ParleyError(.unauthenticated, "Send an auth frame first."))
            connection.queue.close(.unauthenticated, reason: "Not authenticated.")
            return
        }
        switch type {
        case .send:
            let request = try Self.payload(SendMessageRequest.self, from: data)
            reply(connection, .result, id: header.id, try await messaging.send(request, from: identity, origin: connection.tag))
        case .sync:
            let request = try Self.payload(SyncRequest.self, from: data)
            reply(connection, .result, id: header.id, try await messaging.sync(request, for: identity))
        case .history:
            let query = try Self.payload(HistoryQuery.self, from: data)
            guard let conversationId = query.conversationId else {
                throw ParleyError(.missingField, "Missing field 'payload.conversationId'.")
            }
            reply(connection, .result, id: header.id, try await messaging.history(query, in: conversationId, for: identity))
        case .read:
            let request = try Self.payload(ReadRequest.self, from: data)
            guard let conversationId = request.conversationId else {
                throw ParleyError(.missingField, "Missing field 'payload.conversationId'.")
            }
            reply(connection, .result, id: header.id, try await messaging.markRead(conversationId, upTo: request.seq, by: identity))
        case .auth, .ping:
            break
        }
    }

    private func authenticate(_ connection: GatewayConnection, token: String, requestId: String?) async {
        do {
            let identity = try await accounts.authenticate(accessToken: token)
            let user = try await accounts.user(identity.userId)
            hub.attach(connection, as: identity)
            reply(
                connection, .ready, id: requestId,
                ReadyPayload(
                    user: user, sessionId: identity.sessionId, serverTime: clock.now(),
                    heartbeatTimeoutMs: configuration.heartbeatTimeout.milliseconds))
        } catch {
            let parleyError = error as? ParleyError ?? ParleyError(.invalidToken, "Authentication failed.")
            reply(connection, .error, id: requestId, parleyError)
            connection.queue.close(.unauthenticated, reason: parleyError.message)
        }
    }

    /// Decodes a frame's payload strictly; a missing payload is an empty object.
    private static func payload<Payload: StrictDecodable & Sendable & Codable>(_ type: Payload.Type, from data: Data)
        throws -> Payload
    {
        do {
            let frame = try JSONDecoder().decode(Frame<StrictPayload<Payload>>.self, from: data)
            guard let payload = frame.payload else {
                throw ParleyError(.missingField, "Missing field 'payload'.")
            }
            return payload.value
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError(decoding: error)
        }
    }

    private func reply<Payload: Codable & Sendable>(
        _ connection: GatewayConnection, _ type: ServerFrameType, id: String?, _ payload: Payload?
    ) {
        do {
            connection.queue.enqueue(try FrameEncoding.encode(Frame(type, id: id, payload: payload)))
        } catch {
            connection.queue.close(.slowConsumer, reason: "Internal encoding failure.")
        }
    }
}

/// A strictly decoded payload inside a ``Frame``.
private struct StrictPayload<Value: StrictDecodable & Codable & Sendable>: Codable, Sendable {
    let value: Value
    init(from decoder: any Decoder) throws { value = try Value.decodeStrictly(from: decoder) }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
