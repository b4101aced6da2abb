import Foundation

/// How message search compares text, written once for the server's two backends and the
/// SDK's search over the local store, so that a query finds the same messages in each.
///
/// - Text is compared **folded**: case, diacritics and width are ignored ("Crème" and
///   "CREME", "ＡＢＣ" and "abc" are the same), one character at a time, so that a position
///   in the folded text maps back to the original. Kana voicing and Hangul stay distinct.
/// - A query is split at white space into at most ``maxTerms`` **terms**; a message matches
///   when its searchable text contains every term as a substring. There are no word
///   boundaries, so Chinese and Japanese (written without spaces) match anywhere, and a
///   term of one or two characters is as valid as a long one.
/// - **Ranking**: messages that hold the whole query as typed (its terms in order, one space
///   apart) come first, then those that hold the terms apart; newest first within each.
public enum SearchText {
    /// The longest query, in code points (as every text limit counts).
    public static let maxQueryLength = 100
    /// The most terms a query may have.
    public static let maxTerms = 8
    /// The shortest term a trigram index can look up; shorter terms are matched by a scan
    /// of the user's own messages.
    public static let indexedTermLength = 3

    /// `text` folded for comparison (see the type's documentation).
    public static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        // Most Chinese, Japanese and Korean texts: scalar by scalar, without Foundation.
        if text.unicodeScalars.allSatisfy({ $0.isASCII || isUnchangedByFolding($0) }) {
            var scalars = String.UnicodeScalarView()
            for scalar in text.unicodeScalars {
                let isUpper = scalar.value >= 0x41 && scalar.value <= 0x5A
                scalars.append(isUpper ? Unicode.Scalar(scalar.value + 0x20)! : scalar)
            }
            return String(scalars)
        }
        var folded = ""
        folded.reserveCapacity(text.utf8.count)
        for character in text { folded += fold(character) }
        return folded
    }

    private static func fold(_ character: Character) -> String {
        if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1 {
            if scalar.isASCII { return String(character).lowercased() }
            if isUnchangedByFolding(scalar) { return String(character) }
        }
        return String(character).folding(
            options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// CJK ideographs, hiragana, full-width katakana and Hangul syllables, which folding
    /// leaves as they are: most of a Chinese, Japanese or Korean text skips Foundation's fold.
    private static func isUnchangedByFolding(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x3041...0x3096, 0x30A1...0x30FA, 0xAC00...0xD7A3: true
        default: false
        }
    }

    /// The folded terms of `query`, each once, in order. Throws `invalid_field` for an empty
    /// or over-long query, one with control characters, or one with too many terms.
    public static func terms(of query: String) throws -> [String] {
        guard query.unicodeScalars.count <= maxQueryLength else {
            throw ParleyError(.invalidField, "'q' may be at most \(maxQueryLength) characters.")
        }
        guard !query.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" })
        else {
            throw ParleyError(.invalidField, "'q' must not contain control characters.")
        }
        var terms: [String] = []
        for word in query.split(whereSeparator: \.isWhitespace) {
            let term = fold(String(word))
            if !term.isEmpty, !terms.contains(term) { terms.append(term) }
        }
        guard !terms.isEmpty else { throw ParleyError(.invalidField, "'q' must contain something to search for.") }
        guard terms.count <= maxTerms else {
            throw ParleyError(.invalidField, "'q' may have at most \(maxTerms) words.")
        }
        return terms
    }

    /// The whole query as a phrase: its terms in order, one space apart.
    public static func phrase(of terms: [String]) -> String { terms.joined(separator: " ") }

    /// Whether folded `text` holds every term (the match rule, for searching a local store).
    public static func matches(_ terms: [String], folded text: String) -> Bool {
        terms.allSatisfy { text.contains($0) }
    }

    /// A `LIKE` pattern that matches text containing `term` anywhere, with `%`, `_` and the
    /// escape character `\` escaped (`LIKE ? ESCAPE '\'`).
    public static func likePattern(_ term: String) -> String {
        var pattern = "%"
        for character in term {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    /// Where the terms occur in `text` (the original, not folded), as UTF-16 ranges, in order,
    /// overlapping and touching ones merged.
    public static func highlights(of terms: [String], in text: String) -> [TextRange] {
        // The folded text as scalars, each with the UTF-16 range of the character it came from.
        var scalars: [Unicode.Scalar] = []
        var origins: [Range<Int>] = []
        var offset = 0
        for character in text {
            let width = character.utf16.count
            for scalar in fold(character).unicodeScalars {
                scalars.append(scalar)
                origins.append(offset..<offset + width)
            }
            offset += width
        }
        var found: [Range<Int>] = []
        for term in terms {
            let needle = Array(term.unicodeScalars)
            guard !needle.isEmpty, needle.count <= scalars.count else { continue }
            var start = 0
            while start + needle.count <= scalars.count {
                if scalars[start..<start + needle.count].elementsEqual(needle) {
                    found.append(origins[start].lowerBound..<origins[start + needle.count - 1].upperBound)
                    start += needle.count
                } else {
                    start += 1
                }
            }
        }
        var merged: [Range<Int>] = []
        for range in found.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged.map { TextRange(start: $0.lowerBound, length: $0.count) }
    }
}

/// A part of a text, in UTF-16 code units (JavaScript's string indices, `NSRange` on Apple's
/// platforms).
public struct TextRange: Codable, Hashable, Sendable {
    public var start: Int
    public var length: Int

    public init(start: Int, length: Int) {
        self.start = start
        self.length = length
    }
}

extension Message {
    /// The text a search looks in (``SearchText/searchableText(kind:content:)``).
    public var searchableText: String? { SearchText.searchableText(kind: kind, content: content) }
}

extension SearchText {
    /// The content field a search looks in, by kind: a text's or reply's text, a file's or a
    /// location's name. Other kinds hold nothing to search.
    public static let searchableFields: [MessageKind: String] = [
        .text: "text", .reply: "text", .file: "name", .location: "name",
    ]

    /// The text a search looks in (``searchableFields``).
    public static func searchableText(kind: MessageKind, content: JSONValue) -> String? {
        searchableFields[kind].flatMap { content.objectValue?[$0]?.stringValue }
    }
}

extension MessageKind {
    /// The kinds whose content is a file (`hasFile` in a search).
    public static let withFiles: [MessageKind] = [.image, .voice, .video, .file]
}

/// A message search (`GET /v1/search/messages`): the text and its folded terms, the
/// filters, and where the page starts. ``parameters`` and ``init(parameters:)`` are its
/// query string, for clients and the server.
public struct MessageSearchQuery: Hashable, Sendable {
    /// The query as typed (`q`).
    public let text: String
    /// Its folded terms (``SearchText/terms(of:)``).
    public let terms: [String]
    public var conversationId: ConversationID?
    public var senderId: UserID?
    /// Sent at or after (ms since 1970).
    public var since: Int64?
    /// Sent before (ms since 1970).
    public var until: Int64?
    /// Only this kind (one of ``SearchText/searchableFields``).
    public var kind: MessageKind?
    /// Only messages with a file (true) or only those without (false).
    public var hasFile: Bool?
    /// 1 to ``Limits/maxSearchPageSize``.
    public var limit: Int
    public var cursor: SearchCursor?

    /// Throws `invalid_field` for a query ``SearchText/terms(of:)`` refuses.
    public init(
        _ text: String, conversationId: ConversationID? = nil, senderId: UserID? = nil, since: Int64? = nil,
        until: Int64? = nil, kind: MessageKind? = nil, hasFile: Bool? = nil, limit: Int = Limits.defaultSearchPageSize,
        cursor: SearchCursor? = nil
    ) throws {
        self.text = text
        self.terms = try SearchText.terms(of: text)
        self.conversationId = conversationId
        self.senderId = senderId
        self.since = since
        self.until = until
        self.kind = kind
        self.hasFile = hasFile
        self.limit = limit
        self.cursor = cursor
        try check()
    }

    /// Reads a query string's parameters, each checked: `invalid_field` or `missing_field`
    /// naming the parameter.
    public init(parameters: [String: String]) throws {
        guard let text = parameters["q"] else { throw ParleyError(.missingField, "Query parameter 'q' is required.") }
        func integer(_ name: String, minimum: Int64) throws -> Int64? {
            guard let value = parameters[name] else { return nil }
            guard value.allSatisfy({ $0.isASCII && ($0.isWholeNumber || $0 == "-") }), let number = Int64(value),
                number >= minimum
            else {
                throw ParleyError(.invalidField, "Query parameter '\(name)' must be an integer of at least \(minimum).")
            }
            return number
        }
        var hasFile: Bool?
        switch parameters["hasFile"] {
        case nil: break
        case "true": hasFile = true
        case "false": hasFile = false
        default: throw ParleyError(.invalidField, "Query parameter 'hasFile' must be true or false.")
        }
        var cursor: SearchCursor?
        if let text = parameters["cursor"] {
            guard let parsed = SearchCursor(text) else {
                throw ParleyError(.invalidField, "Query parameter 'cursor' is not a cursor this server gave.")
            }
            cursor = parsed
        }
        let conversationId: ConversationID? = try integer("conversationId", minimum: 1).map { ConversationID($0) }
        let senderId: UserID? = try integer("senderId", minimum: 1).map { UserID($0) }
        let kind: MessageKind? = parameters["kind"].map { MessageKind(rawValue: $0) }
        let limit: Int = try integer("limit", minimum: 1).map { Int(clamping: $0) } ?? Limits.defaultSearchPageSize
        try self.init(
            text, conversationId: conversationId, senderId: senderId, since: try integer("since", minimum: 0),
            until: try integer("until", minimum: 0), kind: kind, hasFile: hasFile, limit: limit, cursor: cursor)
    }

    private func check() throws {
        guard (1...Limits.maxSearchPageSize).contains(limit) else {
            throw ParleyError(.invalidField, "Query parameter 'limit' must be 1 to \(Limits.maxSearchPageSize).")
        }
        if let since, let until, since >= until {
            throw ParleyError(.invalidField, "Query parameter 'since' must be before 'until'.")
        }
        if let kind, SearchText.searchableFields[kind] == nil {
            let kinds = SearchText.searchableFields.keys.map(\.rawValue).sorted().joined(separator: ", ")
            throw ParleyError(.invalidField, "Query parameter 'kind' must be one of \(kinds).")
        }
    }

    /// The query string's parameters, in a fixed order.
    public var parameters: [(name: String, value: String)] {
        var parameters = [(name: "q", value: text)]
        if let conversationId { parameters.append(("conversationId", "\(conversationId.rawValue)")) }
        if let senderId { parameters.append(("senderId", "\(senderId.rawValue)")) }
        if let since { parameters.append(("since", "\(since)")) }
        if let until { parameters.append(("until", "\(until)")) }
        if let kind { parameters.append(("kind", kind.rawValue)) }
        if let hasFile { parameters.append(("hasFile", "\(hasFile)")) }
        if limit != Limits.defaultSearchPageSize { parameters.append(("limit", "\(limit)")) }
        if let cursor { parameters.append(("cursor", cursor.description)) }
        return parameters
    }

    /// The whole query as a phrase (see ``SearchText/phrase(of:)``).
    public var phrase: String { SearchText.phrase(of: terms) }

    /// Where a result stands in the order: the phrase first (tier 0), then the rest (tier 1),
    /// newest first within a tier.
    public func tier(ofFolded text: String) -> Int { text.contains(phrase) ? 0 : 1 }

    /// The passes that fetch a page, in order: each tier from the cursor's on, so that a
    /// store reads each tier newest first and stops once the page is full, instead of
    /// reading and sorting every match. A one-term query has one tier (its phrase is its
    /// term).
    public var passes: [SearchPass] {
        let start = cursor?.tier ?? 0
        func before(_ tier: Int) -> MessageID? { cursor?.tier == tier ? cursor?.messageId : nil }
        guard terms.count > 1 else {
            return start == 0 ? [SearchPass(tier: 0, holds: terms, lacks: nil, before: before(0))] : []
        }
        return [
            SearchPass(tier: 0, holds: [phrase], lacks: nil, before: before(0)),
            SearchPass(tier: 1, holds: terms, lacks: phrase, before: before(1)),
        ].filter { $0.tier >= start }
    }
}

/// One pass of a search (``MessageSearchQuery/passes``): the messages of one tier, newest
/// first, whose folded searchable text holds every string of `holds` and not `lacks`, older
/// than `before` when it is set. A store takes `ORDER BY id DESC LIMIT` what the page still
/// needs from each pass in turn.
public struct SearchPass: Hashable, Sendable {
    public var tier: Int
    /// Substrings the folded text must hold: the query's terms, or (tier 0 of a query of
    /// several terms) its phrase, which holds them all.
    public var holds: [String]
    /// A substring it must not hold (tier 1: the phrase, which tier 0 found).
    public var lacks: String?
    /// Only messages with a smaller id (the page starts after the cursor's message).
    public var before: MessageID?

    public init(tier: Int, holds: [String], lacks: String?, before: MessageID?) {
        self.tier = tier
        self.holds = holds
        self.lacks = lacks
        self.before = before
    }

    /// The strings of ``holds`` that a trigram index can look up, and the shorter ones,
    /// which a store checks on the rows it reads.
    public var indexedAndShort: (indexed: [String], short: [String]) {
        (
            holds.filter { $0.unicodeScalars.count >= SearchText.indexedTermLength },
            holds.filter { $0.unicodeScalars.count < SearchText.indexedTermLength }
        )
    }
}

/// Where the next page of a search starts: after message `messageId` of tier `tier`. On the
/// wire it is opaque (`s1.<tier>.<messageId>`).
public struct SearchCursor: Hashable, Sendable, CustomStringConvertible {
    public var tier: Int
    public var messageId: MessageID

    public init(tier: Int, messageId: MessageID) {
        self.tier = tier
        self.messageId = messageId
    }

    /// Parses a cursor; nil when it is not one.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "s1", let tier = Int(parts[1]), (0...1).contains(tier),
            let id = Int64(parts[2]), id > 0
        else { return nil }
        self.init(tier: tier, messageId: MessageID(id))
    }

    public var description: String { "s1.\(tier).\(messageId.rawValue)" }

    /// Whether a result of `tier` with `id` comes after this cursor in the order.
    public func precedes(tier other: Int, id: MessageID) -> Bool {
        other > tier || (other == tier && id.rawValue < messageId.rawValue)
    }
}

/// One message found, with where the terms occur in its searchable text
/// (``Message/searchableText``).
public struct MessageSearchHit: Codable, Hashable, Sendable {
    public var message: Message
    public var highlights: [TextRange]

    public init(message: Message, highlights: [TextRange]) {
        self.message = message
        self.highlights = highlights
    }
}

/// A page of search results, best first; `nextCursor` is absent on the last page.
public struct MessageSearchPage: Codable, Hashable, Sendable {
    public var hits: [MessageSearchHit]
    public var nextCursor: String?

    public init(hits: [MessageSearchHit], nextCursor: String?) {
        self.hits = hits
        self.nextCursor = nextCursor
    }

    /// The page of what a search found (at most `query.limit + 1` messages, in the search's
    /// order, as the server's backends and the SDK's store fetch them): the first
    /// `query.limit` with their highlights, and a cursor when there was one more.
    public init(_ query: MessageSearchQuery, found: [Message]) {
        hits = found.prefix(query.limit).map { message in
            MessageSearchHit(
                message: message, highlights: SearchText.highlights(of: query.terms, in: message.searchableText ?? ""))
        }
        nextCursor = nil
        if found.count > query.limit, let last = hits.last?.message {
            let folded = SearchText.fold(last.searchableText ?? "")
            nextCursor = SearchCursor(tier: query.tier(ofFolded: folded), messageId: last.id).description
        }
    }
}
