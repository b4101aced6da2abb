/// A value from an open set named by strings (message kinds, event types): values this
/// version does not know still decode, compare and encode unchanged, so newer peers' data
/// passes through older code.
public protocol OpenStringValue: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
where RawValue == String {
    init(rawValue: String)
}

extension OpenStringValue {
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
