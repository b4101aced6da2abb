import Foundation

/// A JSON number kept exactly: an integer that fits 64 bits as itself (the common case,
/// and the cheap one to decode and write), anything else as a `Decimal`.
///
/// Decoding makes the form canonical (a whole number within `Int64` is always `.integer`),
/// so equal numbers compare equal, and writing an integer costs no `Decimal` printing.
public enum JSONNumber: Hashable, Sendable, Codable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    case integer(Int64)
    case decimal(Decimal)

    /// The canonical form of `value`.
    public init(_ value: Decimal) {
        if value.isFinite, value == value.rounded(), let integer = Int64(exactly: value) {
            self = .integer(integer)
        } else {
            self = .decimal(value)
        }
    }

    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self.init(Decimal(value)) }

    /// Decodes through `Decimal`, which keeps every digit (Foundation's `Int64` decoding
    /// would take `1.0000000000000001` for 1, by way of a `Double`).
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(Decimal.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let value): try container.encode(value)
        case .decimal(let value): try container.encode(value)
        }
    }

    /// The number exactly.
    public var decimal: Decimal {
        switch self {
        case .integer(let value): Decimal(value)
        case .decimal(let value): value
        }
    }

    /// The number as a `Double`, rounded where it has more digits than a `Double` holds.
    public var double: Double {
        switch self {
        case .integer(let value): Double(value)
        case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
        }
    }
}

extension Decimal {
    fileprivate func rounded() -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, 0, .plain)
        return result
    }
}

extension Int64 {
    /// The whole `Decimal` as an `Int64`, or nil when it does not fit.
    fileprivate init?(exactly decimal: Decimal) {
        guard decimal >= Decimal(Int64.min), decimal <= Decimal(Int64.max) else { return nil }
        self = NSDecimalNumber(decimal: decimal).int64Value
        guard Decimal(self) == decimal else { return nil }
    }
}
