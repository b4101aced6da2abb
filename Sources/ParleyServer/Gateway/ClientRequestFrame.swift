import Foundation
import ParleyCore

/// A client frame decoded in one pass: the envelope strictly, then the payload by its type.
///
/// A frame whose envelope is malformed fails to decode at all (there is no id to answer);
/// one whose type is unknown or whose payload is malformed decodes, keeping its id, with the
/// reason in ``request`` so the error reply can carry that id.
///
/// Decode it as `Strict<ClientRequestFrame>`, so that unknown envelope fields are rejected.
struct ClientRequestFrame: StrictDecodable {
    enum CodingKeys: String, CodingKey {
        case type, id, payload
    }

    /// A request with its strictly decoded payload.
    enum Request {
        case auth(AuthPayload)
        case ping
        case send(SendMessageRequest)
        case sync(SyncRequest)
        case history(HistoryQuery)
        case read(ReadRequest)
    }

    let id: String?
    /// The frame's type; nil when this server version does not know it.
    let type: ClientFrameType?
    let request: Result<Request, any Error>

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let typeName = try container.decode(String.self, forKey: .type)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        type = ClientFrameType(rawValue: typeName)
        guard let type else {
            request = .failure(ParleyError(.unknownFrameType, "Unknown frame type '\(typeName)'."))
            return
        }
        do {
            request = .success(try Self.request(type, in: container))
        } catch {
            request = .failure(error)
        }
    }

    private static func request(_ type: ClientFrameType, in container: KeyedDecodingContainer<CodingKeys>)
        throws -> Request
    {
        switch type {
        case .ping: return .ping
        case .auth: return .auth(try payload(in: container))
        case .send: return .send(try payload(in: container))
        case .sync: return .sync(try payload(in: container))
        case .history: return .history(try payload(in: container))
        case .read: return .read(try payload(in: container))
        }
    }

    /// The payload, decoded strictly; a missing or null payload is an error.
    private static func payload<Payload: StrictDecodable>(in container: KeyedDecodingContainer<CodingKeys>)
        throws -> Payload
    {
        guard let payload = try container.decodeIfPresent(Strict<Payload>.self, forKey: .payload) else {
            throw ParleyError(.missingField, "Missing field 'payload'.")
        }
        return payload.value
    }
}
