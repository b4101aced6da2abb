import Foundation
import ParleyCore
import ParleyStore

/// What a NOTIFY carries: ids, and a new message itself when the note stays within
/// ``carryLimit`` bytes (PostgreSQL takes payloads under 8,000), so that the nodes that did
/// not store it deliver it without reading it back.
struct ChangeNote: Codable, Sendable {
    /// A new message's id, and the sending connection as `node/tag`.
    var message: Int64?
    var origin: String?
    /// The `members_version` of the conversation when its message was sent or its watermark
    /// moved (a `read` or `delivered` note), so that nodes find its member list in their
    /// ``MemberCache``, and a late note still reaches the members of its moment.
    var membersVersion: Int64?
    /// Users who get the message besides the members (a notice to someone it removes).
    var alsoTo: [Int64]?
    /// `[userId, eventSeq]` pairs (at most 200 per note).
    var events: [[Int64]]?
    /// `[conversationId, userId, seq]` of a moved read watermark.
    var read: [Int64]?
    /// `[conversationId, userId, seq]` of a moved delivered watermark (direct conversations).
    var delivered: [Int64]?
    /// A revoked session.
    var session: Int64?
    /// An ephemeral signal, carried whole (it is never stored).
    var signal: Signal?
    /// The new message's seq and the rest of it, when they fit.
    var seq: Int64?
    var carried: CarriedMessage?

    /// The note's JSON, as NOTIFY carries it: without its carried message (and seq) when
    /// that would exceed ``carryLimit``, so encoded twice only then.
    var payload: String? {
        guard let text = Self.encoded(self) else { return nil }
        guard carried != nil, text.utf8.count > Self.carryLimit else { return text }
        var light = self
        (light.seq, light.carried) = (nil, nil)
        return Self.encoded(light)
    }

    private static func encoded(_ note: ChangeNote) -> String? {
        (try? JSONEncoder().encode(note)).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension ChangeNote {
    /// The largest note that carries its message, in bytes; the nodes that hear of a larger
    /// one read it. (It leaves room for the numbers a template's markers stand for.)
    static let carryLimit = 7_000

    /// The note of `message`, stored with its content as `contentJSON`, carrying it (its
    /// ``payload`` leaves it out when it does not fit).
    init(newMessage message: Message, contentJSON: String, origin: String?, membersVersion: Int64, alsoTo: [Int64]?) {
        self.init(message: message.id.rawValue, origin: origin, membersVersion: membersVersion, alsoTo: alsoTo)
        seq = message.seq
        carried = CarriedMessage(message, contentJSON: contentJSON)
    }

    /// The note of `message` with its id, seq and members version still to come: the
    /// statement that stores it puts them in place of ``marker(_:)``s (`id`, `seq` and
    /// `version`). Nothing else in a note can hold one: JSON escapes every control character.
    /// (A seq beside no carried message is ignored.)
    static func messageTemplate(_ message: Message, contentJSON: String, origin: String?, alsoTo: [Int64]?)
        -> String?
    {
        var rest = ChangeNote(origin: origin, alsoTo: alsoTo)
        rest.carried = CarriedMessage(message, contentJSON: contentJSON)
        guard let text = rest.payload else { return nil }
        let marked =
            "\"message\":\(marker("id")),\"membersVersion\":\(marker("version")),\"seq\":\(marker("seq"))"
        return "{" + marked + (text == "{}" ? "}" : "," + text.dropFirst())
    }

    /// Where a template leaves the number `name` to fill: the name between two U+0001s.
    static func marker(_ name: String) -> String { "\u{1}\(name)\u{1}" }

    /// The SQL expression for ``marker(_:)``.
    static func markerSQL(_ name: String) -> String { "chr(1) || '\(name)' || chr(1)" }
}

/// A new message in its note, without the id and seq the note holds beside it.
struct CarriedMessage: Codable, Sendable {
    var conversationId: Int64
    var senderId: Int64
    var clientMsgId: String
    var kind: String
    /// The content as stored.
    var content: String
    var sentAt: Int64
    var quote: MessageQuote?
    var forwarded: Bool?

    init(_ message: Message, contentJSON: String) {
        conversationId = message.conversationId.rawValue
        senderId = message.senderId.rawValue
        clientMsgId = message.clientMsgId
        kind = message.kind.rawValue
        content = contentJSON
        sentAt = message.sentAt
        quote = message.quote
        forwarded = message.forwarded
    }

    /// The message as its stored row reads.
    func message(id: Int64, seq: Int64) throws -> Message {
        Message(
            id: MessageID(id), conversationId: ConversationID(conversationId), seq: seq, senderId: UserID(senderId),
            clientMsgId: clientMsgId, kind: MessageKind(rawValue: kind),
            content: try JSONText.decodeValue(from: content), sentAt: sentAt, quote: quote,
            forwarded: forwarded)
    }
}
