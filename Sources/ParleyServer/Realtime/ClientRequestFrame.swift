import Foundation
import ParleyCore

/// A client frame decoded in one pass: the envelope strictly, then the payload by its type.
///
/// `auth` and `ping` belong to the connection; every other type is a feature's, found in the
/// ``FrameHandlers`` the decoder carries in its `userInfo`. A frame whose envelope is
/// malformed fails to decode at all (there is no id to answer); one whose type is unknown or
/// whose payload is malformed decodes, keeping its id, with the reason in ``request`` so the
/// error reply can carry that id.
///
/// Decode it as `Strict<ClientRequestFrame>`, so that unknown envelope fields are rejected.
struct ClientRequestFrame: StrictDecodable {
    enum CodingKeys: String, CodingKey {
        case type, id, payload
    }

    /// Which part of the server answers the frame.
    enum Kind {
        case auth, ping, feature
    }

    /// A request with its strictly decoded payload.
    enum Request {
        case auth(AuthPayload)
        case ping
        case feature(PreparedFrame)
    }

    let id: String?
    /// nil when this server version does not know the type.
    let kind: Kind?
    let request: Result<Request, any Error>

    private init(id: String?, kind: Kind?, request: Result<Request, any Error>) {
        self.id = id
        self.kind = kind
        self.request = request
    }

    /// The frame read without `JSONDecoder` from `value` (what ``JSONSyntax/parse(_:)`` read),
    /// when it is a plainly valid frame whose handler reads its payload that way
    /// (``FrameHandler/fast``); nil otherwise, and the frame is then decoded the usual way,
    /// errors and all.
    static func fast(_ value: JSONValue?, handlers: FrameHandlers) -> ClientRequestFrame? {
        guard case .object(let envelope)? = value,
            case .string(let type)? = envelope["type"], case .object(let payload)? = envelope["payload"],
            let fast = handlers.handler(for: type)?.fast
        else { return nil }
        var id: String?
        switch envelope["id"] {
        case nil: break
        case .string(let value)?: id = value
        default: return nil
        }
        guard envelope.count == (id == nil ? 2 : 3), let prepared = fast(payload) else { return nil }
        return ClientRequestFrame(id: id, kind: .feature, request: .success(.feature(prepared)))
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let typeName = try container.decode(String.self, forKey: .type)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        switch typeName {
        case ClientFrameType.ping.rawValue:
            kind = .ping
            request = .success(.ping)
        case ClientFrameType.auth.rawValue:
            kind = .auth
            request = Result { .auth(try Self.payload(in: container)) }
        default:
            let handlers = decoder.userInfo[FrameHandlers.userInfoKey] as? FrameHandlers
            guard let handler = handlers?.handler(for: typeName) else {
                kind = nil
                request = .failure(ParleyError(.unknownFrameType, "Unknown frame type '\(typeName)'."))
                return
            }
            kind = .feature
            request = Result { .feature(try handler.prepare(container)) }
        }
    }

    /// The payload, decoded strictly; a missing or null payload is an error.
    static func payload<Payload: StrictDecodable>(in container: KeyedDecodingContainer<CodingKeys>) throws -> Payload {
        guard let payload = try container.decodeIfPresent(Strict<Payload>.self, forKey: .payload) else {
            throw ParleyError(.missingField, "Missing field 'payload'.")
        }
        return payload.value
    }
}
