/// Thrown when an integer field holds a number that is fractional or out of range.
///
/// Foundation's decoder reports such a number (`1.5`, `2^63`, `1e30`) as "not valid JSON"
/// without naming the field, so integer fields of requests decode through the helpers
/// below, which name it; ``ParleyError/init(decoding:)`` turns this into `invalid_field`.
public struct IntegerFieldError: Error, Sendable {
    /// The field, as a dotted path (`payload.seq`).
    public let path: String
}

extension SingleValueDecodingContainer {
    /// Decodes an integer, throwing ``IntegerFieldError`` for a number that does not fit.
    public func decodeInteger<T: FixedWidthInteger & Decodable>(_ type: T.Type) throws -> T {
        try namingIntegerField(codingPath) { try decode(type) }
    }
}

extension KeyedDecodingContainer {
    /// Decodes an integer field, throwing ``IntegerFieldError`` for a number that does not fit.
    public func decodeInteger<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try namingIntegerField(codingPath + [key]) { try decode(type, forKey: key) }
    }

    /// Decodes an optional integer field, throwing ``IntegerFieldError`` for a number that
    /// does not fit.
    public func decodeIntegerIfPresent<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try namingIntegerField(codingPath + [key]) { try decodeIfPresent(type, forKey: key) }
    }

    /// Decodes an array of integers, throwing ``IntegerFieldError`` (naming the array) for a
    /// number that does not fit.
    public func decodeIntegers<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: Key) throws -> [T] {
        try namingIntegerField(codingPath + [key]) { try decode([T].self, forKey: key) }
    }
}

/// Runs `decode`, letting a missing field or a wrong type through and naming the field
/// for anything else (which, for an integer, is a number that does not fit).
private func namingIntegerField<T>(_ path: [any CodingKey], _ decode: () throws -> T) throws -> T {
    do {
        return try decode()
    } catch let error as DecodingError {
        switch error {
        case .typeMismatch, .keyNotFound, .valueNotFound: throw error
        default: throw IntegerFieldError(path: path.map(\.stringValue).joined(separator: "."))
        }
    } catch {
        throw IntegerFieldError(path: path.map(\.stringValue).joined(separator: "."))
    }
}
