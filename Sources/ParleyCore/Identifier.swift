/// A typed database identifier, encoded as a plain JSON number.
///
/// The phantom `Tag` keeps a user id from being passed where a conversation id is expected.
public struct Identifier<Tag>: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    CustomStringConvertible
{
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decodeInteger(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

public enum UserTag {}
public enum ConversationTag {}
public enum SessionTag {}
public enum MessageTag {}

public typealias UserID = Identifier<UserTag>
public typealias ConversationID = Identifier<ConversationTag>
public typealias SessionID = Identifier<SessionTag>
public typealias MessageID = Identifier<MessageTag>
