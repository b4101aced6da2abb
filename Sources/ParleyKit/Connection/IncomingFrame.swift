import Foundation
import ParleyCore

/// A frame from the server: its type and id, with the payload decoded on demand.
public struct IncomingFrame: Sendable {
    public let type: String
    public let id: String?
    public let text: String

    private struct Header: Decodable {
        var type: String
        var id: String?
    }

    private struct Envelope<Payload: Decodable>: Decodable {
        var payload: Payload
    }

    /// Reads the envelope; nil for text that is not a frame.
    public init?(text: String) {
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(text.utf8)) else { return nil }
        self.type = header.type
        self.id = header.id
        self.text = text
    }

    public func payload<Payload: Decodable>(_ type: Payload.Type) throws -> Payload {
        try JSONDecoder().decode(Envelope<Payload>.self, from: Data(text.utf8)).payload
    }

    /// The answer's payload, or the ``ParleyError`` of an `error` frame, thrown.
    public func result<Payload: Decodable>(_ type: Payload.Type) throws -> Payload {
        if self.type == ServerFrameType.error.rawValue { throw try payload(ParleyError.self) }
        return try payload(type)
    }
}
