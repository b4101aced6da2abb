import Foundation

/// Any JSON value, kept exactly as it arrived.
///
/// Message content is stored and relayed as a `JSONValue`, so a kind this version does not
/// know (sent by a newer client) survives a round trip through the server intact. Numbers
/// are decimal, so they come back number for number (``JSONSyntax`` bounds what is accepted
/// to what a `Decimal` holds exactly).
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Probes the likeliest shapes first (content is an object of mostly strings and
    /// numbers): a failed probe throws, and throwing is the costly part of decoding.
    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(object.allKeys.count)
            for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(members)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(JSONNumber.self) {
            self = .number(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The members of an object, or nil for any other value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The string, or nil for any other value.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as a `Double` (possibly rounded), or nil for any other value.
    public var numberValue: Double? {
        if case .number(let value) = self { return value.double }
        return nil
    }

    /// The number, exactly, or nil for any other value.
    public var decimalValue: Decimal? {
        if case .number(let value) = self { return value.decimal }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(.integer(Int64(value))) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(floatLiteral: value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
