import Foundation

/// JSON as text, for storage columns that hold structured values.
public enum JSONText {
    /// Shared, as they are configured once and never changed (both are thread-safe).
    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()

    public static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try decoder.decode(type, from: Data(text.utf8))
    }

    /// Decodes a stored ``JSONValue`` (a message's content) to what `JSONDecoder` reads: in
    /// the one pass of ``JSONSyntax/parse(_:)`` where it reads the value, else with
    /// `JSONDecoder`. A first sync page decodes a hundred last messages, and `JSONDecoder`
    /// was a tenth of a login.
    public static func decodeValue(from text: String) throws -> JSONValue {
        if let value = try? JSONSyntax.parse(text) { return value }
        return try decode(JSONValue.self, from: text)
    }

    /// Decodes what a client sent: strict RFC 8259 first (``JSONSyntax``), then the value.
    public static func decodeRequest<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { try JSONSyntax.check($0) }
        return try decoder.decode(type, from: data)
    }

    /// Decodes what a client sent: strict RFC 8259 first (``JSONSyntax``), then the value.
    public static func decodeRequest<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try decodeRequest(type, from: text, using: decoder)
    }

    /// Decodes what a client sent with a decoder of the caller's (one that carries `userInfo`):
    /// strict RFC 8259 first (``JSONSyntax``), then the value.
    public static func decodeRequest<T: Decodable>(_ type: T.Type, from text: String, using decoder: JSONDecoder)
        throws -> T
    {
        try JSONSyntax.check(text)
        return try decoder.decode(type, from: Data(text.utf8))
    }
}
