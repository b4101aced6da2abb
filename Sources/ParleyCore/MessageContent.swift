/// The typed payloads of the message kinds this version knows (SPEC 2.4).
///
/// The wire carries `kind` and `content` (any JSON object); this type is the checked view of
/// it. A kind this version does not know becomes `.unsupported` and is kept intact.
public enum MessageContent: Hashable, Sendable {
    case text(text: String, mentions: Mentions)
    /// An image, with a smaller image of its own (`thumbnailId`) a client shows first.
    case image(fileId: String, width: Int, height: Int, thumbnailId: String?)
    case voice(fileId: String, durationMs: Int)
    /// A video, with its dimensions and a still (`posterId`) shown before it plays.
    case video(fileId: String, durationMs: Int, size: Int, width: Int?, height: Int?, posterId: String?)
    case file(fileId: String, name: String, size: Int)
    case sticker(pack: String, sticker: String)
    case location(latitude: Double, longitude: Double, name: String?)
    /// A text that quotes message `replyTo` of the same conversation.
    case reply(text: String, replyTo: MessageID, mentions: Mentions)
    case system(SystemNotice)
    /// A recalled message: its content is gone.
    case recalled(by: UserID)
    /// A message the viewer deleted for themselves.
    case deleted
    case unsupported(kind: MessageKind, content: JSONValue)

    /// Checks `content` against the rules of `kind`, throwing `message_invalid` with the
    /// reason when a known kind is malformed.
    public init(kind: MessageKind, content: JSONValue) throws {
        guard let members = content.objectValue else {
            throw ParleyError(.messageInvalid, "Message content must be a JSON object.")
        }
        let fields = ContentFields(kind: kind, members: members)
        switch kind {
        case .text:
            self = .text(text: try fields.text("text"), mentions: try fields.mentions())
        case .image:
            self = .image(
                fileId: try fields.string("fileId"), width: try fields.count("width", minimum: 1),
                height: try fields.count("height", minimum: 1), thumbnailId: try fields.optionalString("thumbnailId"))
        case .voice:
            self = .voice(fileId: try fields.string("fileId"), durationMs: try fields.count("durationMs"))
        case .video:
            self = .video(
                fileId: try fields.string("fileId"), durationMs: try fields.count("durationMs"),
                size: try fields.count("size"), width: try fields.optionalCount("width"),
                height: try fields.optionalCount("height"), posterId: try fields.optionalString("posterId"))
        case .file:
            self = .file(
                fileId: try fields.string("fileId"), name: try fields.string("name"), size: try fields.count("size"))
        case .sticker:
            self = .sticker(pack: try fields.string("pack"), sticker: try fields.string("sticker"))
        case .location:
            let latitude = try fields.number("latitude", in: -90...90)
            let longitude = try fields.number("longitude", in: -180...180)
            self = .location(latitude: latitude, longitude: longitude, name: try fields.optionalString("name"))
        case .reply:
            self = .reply(
                text: try fields.text("text"), replyTo: MessageID(Int64(try fields.count("replyTo", minimum: 1))),
                mentions: try fields.mentions())
        case .system:
            self = .system(
                SystemNotice(
                    SystemEvent(rawValue: try fields.string("event")),
                    by: try fields.optionalUserID("actorId"), about: try fields.userIDs("userIds"),
                    text: try fields.optionalText("text"), until: try fields.optionalInteger("until")))
        case .recalled:
            guard let by = try fields.optionalUserID("recalledBy") else { throw fields.fail("needs 'recalledBy'") }
            self = .recalled(by: by)
        case .deleted:
            self = .deleted
        default:
            self = .unsupported(kind: kind, content: content)
        }
    }

    /// Whom it mentions (only texts and replies mention).
    public var mentions: Mentions {
        switch self {
        case .text(_, let mentions), .reply(_, _, let mentions): mentions
        default: .none
        }
    }

    /// The files it shows, each with the kind of message it must suit (a thumbnail or a
    /// poster is an image) and the size the content states, where it states one.
    public var fileReferences: [FileReference] {
        switch self {
        case .image(let fileId, _, _, let thumbnailId):
            [FileReference(fileId: fileId, kind: .image)]
                + (thumbnailId.map { [FileReference(fileId: $0, kind: .image)] } ?? [])
        case .voice(let fileId, _): [FileReference(fileId: fileId, kind: .voice)]
        case .video(let fileId, _, let size, _, _, let posterId):
            [FileReference(fileId: fileId, kind: .video, size: Int64(size))]
                + (posterId.map { [FileReference(fileId: $0, kind: .image)] } ?? [])
        case .file(let fileId, _, let size): [FileReference(fileId: fileId, kind: .file, size: Int64(size))]
        default: []
        }
    }

    /// The text of a text or reply.
    public var text: String? {
        switch self {
        case .text(let text, _), .reply(let text, _, _): text
        default: nil
        }
    }
}

/// A file a message shows: the kind of message its type must suit and, for a file or a
/// video, the size the message states.
public struct FileReference: Hashable, Sendable {
    public var fileId: String
    public var kind: MessageKind
    public var size: Int64?

    public init(fileId: String, kind: MessageKind, size: Int64? = nil) {
        self.fileId = fileId
        self.kind = kind
        self.size = size
    }
}

/// Reads typed fields out of a content object, with one error message shape for all kinds.
private struct ContentFields {
    let kind: MessageKind
    let members: [String: JSONValue]

    /// The control characters text may hold.
    static let textControls: Set<Unicode.Scalar> = ["\n", "\r", "\t"]

    func fail(_ reason: String) -> ParleyError {
        ParleyError(.messageInvalid, "A \(kind.rawValue) message \(reason).")
    }

    func string(_ key: String) throws -> String {
        guard let value = members[key]?.stringValue, !value.isEmpty, TextRules.length(value) <= 1024,
            !TextRules.containsControlCharacter(value)
        else {
            throw fail("needs a non-empty string '\(key)' of at most 1024 characters, with no control characters")
        }
        return value
    }

    func optionalCount(_ key: String) throws -> Int? {
        guard let value = members[key], value != .null else { return nil }
        return try count(key, minimum: 1)
    }

    func optionalString(_ key: String) throws -> String? {
        guard let value = members[key], value != .null else { return nil }
        return try string(key)
    }

    func text(_ key: String) throws -> String {
        guard let value = members[key]?.stringValue else { throw fail("needs a string '\(key)'") }
        guard !value.allSatisfy(\.isWhitespace) else { throw fail("needs a non-empty '\(key)'") }
        guard TextRules.length(value) <= Limits.maxTextLength else {
            throw fail("may have at most \(Limits.maxTextLength) characters (Unicode code points) of '\(key)'")
        }
        guard !TextRules.containsControlCharacter(value, allowing: Self.textControls) else {
            throw fail("may not contain control characters in '\(key)' other than newline, carriage return and tab")
        }
        return value
    }

    func count(_ key: String, minimum: Int = 0) throws -> Int {
        guard let value = members[key]?.numberValue, value == value.rounded(), value >= Double(minimum), value < 1e15
        else {
            throw fail("needs a whole number '\(key)' of at least \(minimum)")
        }
        return Int(value)
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws -> Double {
        guard let value = members[key]?.numberValue, range.contains(value) else {
            throw fail("needs a number '\(key)' between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    func optionalUserID(_ key: String) throws -> UserID? {
        guard let value = members[key], value != .null else { return nil }
        guard let number = value.numberValue, number == number.rounded(), number >= 1, number < 1e15 else {
            throw fail("needs '\(key)' to be a user id")
        }
        return UserID(Int64(number))
    }

    /// Any string, empty included (a notice's new description may be empty).
    func optionalText(_ key: String) throws -> String? {
        guard let value = members[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw fail("needs '\(key)' to be a string") }
        return text
    }

    func optionalInteger(_ key: String) throws -> Int64? {
        guard members[key] != nil, members[key] != .null else { return nil }
        return Int64(try count(key))
    }

    /// `mentions` (at most ``Limits/maxMentions`` distinct user ids) and `mentionAll`.
    func mentions() throws -> Mentions {
        let userIds = try userIDs("mentions")
        guard userIds.count <= Limits.maxMentions, Set(userIds).count == userIds.count else {
            throw fail("may mention at most \(Limits.maxMentions) users, each once")
        }
        var all = false
        if let value = members["mentionAll"], value != .null {
            guard case .bool(let flag) = value else { throw fail("needs 'mentionAll' to be true or false") }
            all = flag
        }
        return Mentions(userIds, all: all)
    }

    func userIDs(_ key: String) throws -> [UserID] {
        guard let value = members[key], value != .null else { return [] }
        guard case .array(let items) = value else { throw fail("needs '\(key)' to be an array of user ids") }
        return try items.map { item in
            guard let number = item.numberValue, number == number.rounded(), number >= 1, number < 1e15 else {
                throw fail("needs '\(key)' to be an array of user ids")
            }
            return UserID(Int64(number))
        }
    }
}
