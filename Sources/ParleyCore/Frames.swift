import Foundation

/// The frame types a client sends on the WebSocket.
public enum ClientFrameType: String, Codable, Sendable, CaseIterable {
    /// `{"token": …}`: must be the first frame unless the upgrade request carried the token.
    case auth
    /// Heartbeat; the server answers `pong` with the same id.
    case ping
    /// A ``SendMessageRequest``; answered with a `result` holding a ``SendMessageResponse``.
    case send
    /// A ``SyncRequest``; answered with a ``SyncResponse``.
    case sync
    /// A ``HistoryQuery`` with `conversationId`; answered with a ``HistoryPage``.
    case history
    /// A ``ReadRequest`` with `conversationId`; answered with a ``ReadReceipt``.
    case read
    /// An ``UpdateGroupRequest`` with `conversationId`; answered with a ``ConversationDetail``.
    case updateGroup = "update_group"
    /// The earlier name of `update_group` (which takes the same body), kept for clients
    /// written against it.
    case rename
    /// A ``TypingRequest``: the user is typing in a conversation (sent again every few
    /// seconds while typing) or stopped; answered with an empty `result`.
    case typing
    /// A ``ForwardMessageRequest``; answered with a ``SendMessageResponse``.
    case forward
    /// A ``ReadRequest`` with `conversationId`: messages up to `seq` reached this device;
    /// answered with a ``ReadReceipt`` holding the delivered watermark.
    case delivered
    /// A ``RecallRequest``; answered with the recalled ``Message``.
    case recall
    /// An ``EditMessageRequest`` with `messageId`; answered with the edited ``Message``.
    case edit
}

/// The frame types the server sends on the WebSocket.
public enum ServerFrameType: String, Codable, Sendable, CaseIterable {
    /// Authentication succeeded: a ``ReadyPayload``.
    case ready
    /// The answer to `ping`.
    case pong
    /// The answer to a request, with the request's id.
    case result
    /// A ``ParleyError``, with the id of the request it answers when there is one.
    case error
    /// A committed ``Message`` in one of the user's conversations.
    case message
    /// A ``UserEvent`` from the user's event stream.
    case event
    /// A ``ReadReceipt``: another member's read watermark moved.
    case receipt
    /// A ``ReadReceipt``: the other member of a direct conversation got messages up to `seq`
    /// on one of their devices.
    case delivered
    /// A ``TypingNotice``: another member is typing, or stopped. Ephemeral: never stored,
    /// never in sync, lost by a device that is not connected.
    case typing
    /// A ``Presence``: a friend came online or went offline (or hid it). Ephemeral, like
    /// `typing`; a device that connects asks `GET /v1/presence` for the current state.
    case presence

    /// Whether frames of this type are ephemeral signals (sent through the fan-out, never
    /// stored) rather than answers or stored changes.
    public var isSignal: Bool { self == .typing || self == .presence }
}

/// One JSON frame: `{"type": …, "id": …, "payload": …}`. `id` pairs a request with its answer.
public struct Frame<Payload: Codable & Sendable>: Codable, Sendable {
    public var type: String
    public var id: String?
    public var payload: Payload?

    public init(type: String, id: String? = nil, payload: Payload?) {
        self.type = type
        self.id = id
        self.payload = payload
    }

    public init(_ type: ServerFrameType, id: String? = nil, payload: Payload?) {
        self.init(type: type.rawValue, id: id, payload: payload)
    }

    public init(_ type: ClientFrameType, id: String? = nil, payload: Payload?) {
        self.init(type: type.rawValue, id: id, payload: payload)
    }
}

/// A frame with no payload.
public struct EmptyPayload: Codable, Sendable, Hashable, StrictDecodable {
    public enum CodingKeys: CodingKey, CaseIterable {}
    public init() {}
    public init(from decoder: any Decoder) throws { _ = try decoder.container(keyedBy: CodingKeys.self) }
    public func encode(to encoder: any Encoder) throws { _ = encoder.container(keyedBy: CodingKeys.self) }
}

/// The payload of an `auth` frame.
public struct AuthPayload: Codable, Sendable, StrictDecodable {
    public var token: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case token
    }

    public init(token: String) { self.token = token }
}

/// The payload of a `ready` frame.
public struct ReadyPayload: Codable, Sendable {
    public var user: User
    public var sessionId: SessionID
    public var serverTime: Int64
    /// The heartbeat timeout in milliseconds: send `ping` well within it.
    public var heartbeatTimeoutMs: Int64
    /// How long after sending a member may recall their own message (owners and admins of a
    /// group recall at any time).
    public var recallWindowMs: Int64?
    /// How long after sending a member may edit their own text.
    public var editWindowMs: Int64?

    public init(
        user: User, sessionId: SessionID, serverTime: Int64, heartbeatTimeoutMs: Int64, recallWindowMs: Int64? = nil,
        editWindowMs: Int64? = nil
    ) {
        self.user = user
        self.sessionId = sessionId
        self.serverTime = serverTime
        self.heartbeatTimeoutMs = heartbeatTimeoutMs
        self.recallWindowMs = recallWindowMs
        self.editWindowMs = editWindowMs
    }
}

/// The close codes the server chooses (RFC 6455's 1013 and the application's 4000–4999),
/// documented in docs/protocol.md.
public enum CloseCode: Int, Sendable, CaseIterable {
    /// The server cannot serve the socket right now (its storage failed); reconnect later.
    case tryAgainLater = 1013
    /// No valid `auth` frame in time, or the token was rejected. Do not reconnect with it.
    case unauthenticated = 4001
    /// The session was revoked (logout, or revoked from another device). Do not reconnect.
    case sessionRevoked = 4002
    /// The connection fell too far behind; reconnect and sync from your cursor.
    case slowConsumer = 4003
    /// Nothing was received within the heartbeat timeout.
    case heartbeatTimeout = 4004
    /// The server node may have missed real-time changes; reconnect (to any node) and sync.
    case resyncRequired = 4005
}

extension ParleyError {
    /// Translates a decoding failure into the error a client sees for a bad request body or
    /// frame; an error of any other kind reads as malformed JSON.
    public init(decoding error: any Error) {
        self = ParleyError(requestFailure: error) ?? ParleyError(.invalidJSON, "The body is not valid JSON.")
    }

    /// The error a client sees for a request that failed to decode, or was refused with a
    /// ``ParleyError``; nil when `error` is neither (the server's own failure).
    public init?(requestFailure error: any Error) {
        switch error {
        case let unknown as UnknownFieldError:
            self.init(.unknownField, "Unknown field '\(unknown.path)'.")
        case let integer as IntegerFieldError:
            self.init(
                .invalidField, "Field '\(integer.path)' must be a whole number from \(Int64.min) to \(Int64.max).")
        case DecodingError.keyNotFound(let key, let context):
            let path = (context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")
            self.init(.missingField, "Missing field '\(path)'.")
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            if path.isEmpty {
                self.init(.invalidJSON, "The body must be a JSON object.")
            } else {
                self.init(.invalidField, "Field '\(path)' has the wrong type.")
            }
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            self.init(.invalidField, "Field '\(path)' is not valid.")
        case DecodingError.dataCorrupted:
            self.init(.invalidJSON, "The body is not valid JSON.")
        case let parley as ParleyError:
            self = parley
        default:
            return nil
        }
    }
}
