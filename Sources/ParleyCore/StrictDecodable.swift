/// A request body that rejects fields it does not define.
///
/// A misspelt field (`"nickame"`) must fail loudly rather than be silently ignored, so
/// every request type lists its fields once, in `CodingKeys`, and decoding through
/// ``StrictDecodable/decodeStrictly(from:)`` checks the object against that list.
public protocol StrictDecodable: Decodable {
    associatedtype CodingKeys: CodingKey
}

/// A coding key that accepts any name, used to list the keys an object really has.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The error thrown when an object carries a field its type does not define.
public struct UnknownFieldError: Error, Sendable {
    public let field: String
    public let path: String
}

extension StrictDecodable {
    /// Decodes `Self` from `decoder`, throwing ``UnknownFieldError`` for any undefined field.
    public static func decodeStrictly(from decoder: any Decoder) throws -> Self {
        // On the hot path of every request: no key paths, sets or sorting unless a key is unknown.
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let unknown = container.allKeys.filter { CodingKeys(stringValue: $0.stringValue) == nil }
        if let first = unknown.map({ $0.stringValue }).min() {
            let path = (decoder.codingPath.map { $0.stringValue } + [first]).joined(separator: ".")
            throw UnknownFieldError(field: first, path: path)
        }
        return try Self(from: decoder)
    }
}

/// Wraps a ``StrictDecodable`` so that a plain `JSONDecoder.decode` call decodes it strictly.
public struct Strict<Value: StrictDecodable>: Decodable {
    public let value: Value
    public init(from decoder: any Decoder) throws {
        value = try Value.decodeStrictly(from: decoder)
    }
}
