import Foundation
import ParleyCore
import Testing

/// ``JSONWriter`` must write JSON that decodes to the very values `JSONEncoder`'s output
/// decodes to, with the same keys, for every message it is used for.
struct JSONWriterTests {
    static let awkwardStrings: [String] = [
        "", "plain", "quote \" and backslash \\ and slash /", "new\nline\r\ttab", "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}",
        "ünïcødé 汉字 🙂👩‍👩‍👧", "\u{2028}\u{2029}", String((0..<128).map { Character(Unicode.Scalar($0)!) }),
    ]
    static let awkwardNumbers: [Decimal] =
        [0, -0.0, 1, -1, 12.5, -0.001, 1e-7, 123_456_789_012, 1e100, -1e-100, .pi, 0.1 + 0.2].map { Decimal($0) }
        + ["9007199254740993", "123456789012345678901234567890", "-0.00000000000000000000000000000000000001"].compactMap
    {
        Decimal(string: $0)
    }

    static var messages: [Message] {
        var contents: [JSONValue] = Self.awkwardStrings.map { ["text": .string($0)] }
        contents += Self.awkwardNumbers.map { ["t": .number(JSONNumber($0))] }
        contents.append([
            "text": "hi", "mentions": [1, 2, 3], "nested": ["a": [nil, true, false, ["b": []]], "c": [:]], "empty": "",
            "quote\"key": "value",
        ])
        return contents.enumerated().map { index, content in
            Message(
                id: MessageID(Int64(index) + 1), conversationId: ConversationID(7), seq: Int64(index) * 1_000_003,
                senderId: UserID(42),
                clientMsgId: index.isMultiple(of: 2) ? "c-\(index)" : "odd\"id\\\(index)",
                kind: index == 3 ? "poll.v2" : .text,
                content: content, sentAt: 1_795_000_000_000 + Int64(index),
                // The optional fields, each present and absent across the list; a quote's text
                // carries the awkward strings too.
                quote: index % 3 == 0
                    ? nil
                    : MessageQuote(
                        id: MessageID(9), seq: 8, senderId: UserID(3), kind: index % 3 == 1 ? .text : .recalled,
                        text: index % 3 == 1 ? Self.awkwardStrings[index % Self.awkwardStrings.count] : nil),
                forwarded: index.isMultiple(of: 4) ? true : nil,
                editedAt: index.isMultiple(of: 5) ? 1_795_000_100_000 + Int64(index) : nil)
        }
    }

    @Test func messagesDecodeToTheSameValueWithTheSameKeysAsFromJSONEncoder() throws {
        for message in Self.messages {
            var writer = JSONWriter()
            try writer.message(message)
            let written = Data(writer.bytes)
            #expect(try JSONDecoder().decode(Message.self, from: written) == message)
            let reference = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(message))
            #expect(try JSONDecoder().decode(JSONValue.self, from: written) == reference)
        }
    }

    /// Summaries with each optional part present and absent, and awkward strings in every
    /// text field.
    static var summaries: [ConversationSummary] {
        Self.awkwardStrings.enumerated().map { index, text in
            let odd = !index.isMultiple(of: 2)
            let group = GroupProfile(
                name: text, description: text, avatar: odd ? "f-\(index)" : nil,
                announcement: odd ? GroupAnnouncement(text: text, updatedBy: UserID(4), updatedAt: 99) : nil,
                joinPolicy: JoinPolicy.allCases[index % JoinPolicy.allCases.count], muteAll: odd, memberLimit: 500,
                ownerId: UserID(4), dissolvedAt: index % 3 == 0 ? 1_795_000_000_000 : nil, everyoneMayMentionAll: !odd)
            return ConversationSummary(
                id: ConversationID(Int64(index) + 1), kind: odd ? .group : .direct, name: odd ? text : nil,
                peerId: odd ? nil : UserID(8), memberCount: odd ? 300 : 2, maxSeq: Int64(index) * 10,
                readSeq: Int64(index), othersReadSeq: 3, othersDeliveredSeq: 4, unreadMentions: index,
                lastMessage: index % 3 == 1 ? nil : Self.messages[index % Self.messages.count],
                createdAt: 1_795_000_000_000, lastActivityAt: 1_795_000_000_001, group: odd ? group : nil,
                settings: ConversationSettings(
                    pinnedAt: odd ? 5 : nil, muted: !odd, hiddenUpToSeq: index % 3 == 0 ? 7 : nil, draft: text,
                    draftSavedAt: text.isEmpty ? nil : 6, clearedUpToSeq: index % 4 == 0 ? 2 : nil))
        }
    }

    @Test func historyAndSearchPagesDecodeToTheSameValueWithTheSameKeysAsFromJSONEncoder() throws {
        try Self.expectSameAsJSONEncoder([
            HistoryPage(messages: [], hasMore: false),
            HistoryPage(messages: Self.messages, hasMore: true),
            HistoryPage(messages: Array(Self.messages.suffix(1)), hasMore: false),
        ])
        try Self.expectSameAsJSONEncoder([
            MessageSearchPage(hits: [], nextCursor: nil),
            MessageSearchPage(
                hits: Self.messages.enumerated().map { index, message in
                    MessageSearchHit(
                        message: message,
                        highlights: (0..<index % 3).map { TextRange(start: $0 * 7, length: index + 1) })
                }, nextCursor: "1:99"),
        ])
    }

    @Test func syncAndListPagesMembersAndReceiptsDecodeToTheSameValueWithTheSameKeysAsFromJSONEncoder() throws {
        let members = Self.awkwardStrings.enumerated().map { index, text in
            Member(
                userId: UserID(Int64(index) + 1), role: [.owner, .admin, .member][index % 3], readSeq: Int64(index),
                joinedAt: 9, nickname: index.isMultiple(of: 2) ? text : nil,
                mutedUntil: index.isMultiple(of: 3) ? 1_795_000_000_000 : nil)
        }
        let details = Self.summaries.map { ConversationDetail(conversation: $0, members: members) }
        let pages = [
            SyncResponse(conversations: [], events: [], cursor: "", hasMore: false),
            SyncResponse(
                conversations: Self.summaries,
                events: [
                    UserEvent(
                        seq: 1, at: 2,
                        MembersRemoved(
                            conversationId: ConversationID(3), userIds: [UserID(4)], reason: .left,
                            removedBy: UserID(4),
                            lastSeq: 6
                        ).body),
                    UserEvent(seq: 2, at: 3, ConversationAdded(conversationId: ConversationID(5)).body),
                ], cursor: "c\"ursor", hasMore: true),
        ]
        try Self.expectSameAsJSONEncoder(details)
        try Self.expectSameAsJSONEncoder(pages)
        try Self.expectSameAsJSONEncoder([
            ConversationPage(conversations: [], nextCursor: nil),
            ConversationPage(conversations: Self.summaries, nextCursor: "next\"cursor"),
            ConversationPage(conversations: Array(Self.summaries.prefix(1)), nextCursor: nil),
        ])
        try Self.expectSameAsJSONEncoder([
            ReadReceipt(conversationId: ConversationID(1), userId: UserID(2), seq: 0),
            ReadReceipt(conversationId: ConversationID(Int64.max), userId: UserID(7), seq: Int64.max),
        ])
    }

    private static func expectSameAsJSONEncoder<Value: JSONWritable & Decodable & Equatable>(_ values: [Value]) throws {
        for value in values {
            let written = Data(try value.jsonBytes())
            #expect(try JSONDecoder().decode(Value.self, from: written) == value)
            let reference = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
            #expect(try JSONDecoder().decode(JSONValue.self, from: written) == reference)
        }
    }

    @Test func notANumberIsRejected() {
        var writer = JSONWriter()
        #expect(throws: EncodingError.self) { try writer.value(["n": .number(.decimal(.nan))]) }
    }
}
