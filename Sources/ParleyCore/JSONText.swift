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
}
