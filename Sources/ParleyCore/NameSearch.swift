/// Finding one's contacts and groups by name (issue 15): the rules the server and the device
/// share. Names fold as message text does (``SearchText``: case, accents and width ignored;
/// substrings, so Chinese and Japanese names need no spaces), a name matches when it holds
/// every term, and the best matches come first: the whole name, then its start, then anywhere.
public enum NameSearch {
    /// Hits per answer: when the request does not say, and at most.
    public static let defaultLimit = 20
    public static let maxLimit = 100
    /// Members shown per group hit: the ones whose names matched, at most this many.
    public static let membersPerGroup = 5

    /// How `name` matches `terms`: nil unless it holds every one; otherwise its tier (0 the
    /// whole name is the query, 1 it starts with it, 2 it holds the terms anywhere).
    public static func tier(of name: String, matching terms: [String]) -> Int? {
        let folded = SearchText.fold(name)
        guard !folded.isEmpty, SearchText.matches(terms, folded: folded) else { return nil }
        let phrase = SearchText.phrase(of: terms)
        if folded == phrase { return 0 }
        return folded.hasPrefix(phrase) ? 1 : 2
    }

    /// The fields of a user (with the caller's remark for them, if any) that match, best tier
    /// first, or nil when none does.
    public static func match(_ user: User, remark: String = "", _ terms: [String]) -> NameMatch? {
        var best: Int?
        var fields: [NameField] = []
        for (field, text) in [
            (NameField.remark, remark), (NameField.nickname, user.nickname), (NameField.username, user.username),
        ] {
            guard let tier = tier(of: text, matching: terms) else { continue }
            best = min(best ?? tier, tier)
            fields.append(NameField(field: field, highlights: SearchText.highlights(of: terms, in: text)))
        }
        return best.map { NameMatch(tier: $0, fields: fields) }
    }

    /// The contacts that match `query`, best first, then by the name shown (the remark, or
    /// else the nickname), then by id.
    public static func contacts(_ contacts: [Contact], matching query: NameSearchQuery) -> [ContactSearchHit] {
        let hits = contacts.compactMap { contact -> (Int, String, ContactSearchHit)? in
            guard let match = match(contact.user, remark: contact.remark, query.terms) else { return nil }
            let shown = SearchText.fold(contact.remark.isEmpty ? contact.user.nickname : contact.remark)
            return (match.tier, shown, ContactSearchHit(contact: contact, matched: match.fields))
        }
        return hits.sorted { ($0.0, $0.1, $0.2.contact.user.id.rawValue) < ($1.0, $1.1, $1.2.contact.user.id.rawValue) }
            .prefix(query.limit).map(\.2)
    }

    /// The groups that match `query` by name or by the members given (those whose names may
    /// match), best first: by the name's tier, then groups found only by a member, each
    /// in name order, then by id.
    public static func groups(_ groups: [GroupName], members: [GroupMemberName], matching query: NameSearchQuery)
        -> [GroupSearchHit]
    {
        var matchedMembers: [ConversationID: [MatchedMember]] = [:]
        for candidate in members {
            guard let match = match(candidate.user, query.terms),
                matchedMembers[candidate.conversationId, default: []].count < membersPerGroup
            else { continue }
            matchedMembers[candidate.conversationId, default: []].append(
                MatchedMember(user: candidate.user, matched: match.fields))
        }
        let hits = groups.compactMap { group -> (Int, String, GroupSearchHit)? in
            let tier = tier(of: group.name, matching: query.terms)
            let members = matchedMembers[group.id] ?? []
            guard tier != nil || !members.isEmpty else { return nil }
            let hit = GroupSearchHit(
                group: group, nameHighlights: tier == nil ? [] : SearchText.highlights(of: query.terms, in: group.name),
                members: members)
            return (tier ?? 3, SearchText.fold(group.name), hit)
        }
        return hits.sorted { ($0.0, $0.1, $0.2.group.id.rawValue) < ($1.0, $1.1, $1.2.group.id.rawValue) }
            .prefix(query.limit).map(\.2)
    }
}

/// A contacts or groups search: the text (``SearchText/terms(of:)``) and how many hits.
public struct NameSearchQuery: Hashable, Sendable {
    public let text: String
    public let terms: [String]
    public let limit: Int

    /// Throws `invalid_field` for a query ``SearchText/terms(of:)`` refuses or a limit out of
    /// 1...``NameSearch/maxLimit``.
    public init(_ text: String, limit: Int = NameSearch.defaultLimit) throws {
        guard (1...NameSearch.maxLimit).contains(limit) else {
            throw ParleyError(.invalidField, "Query parameter 'limit' must be 1 to \(NameSearch.maxLimit).")
        }
        self.text = text
        self.terms = try SearchText.terms(of: text)
        self.limit = limit
    }

    /// Reads `q` and `limit` from a query string (others are ignored, as message search does).
    public init(parameters: [String: String]) throws {
        guard let text = parameters["q"] else { throw ParleyError(.missingField, "Query parameter 'q' is required.") }
        var limit = NameSearch.defaultLimit
        if let value = parameters["limit"] {
            guard value.allSatisfy({ $0.isASCII && $0.isWholeNumber }), let number = Int(value) else {
                throw ParleyError(.invalidField, "Query parameter 'limit' must be 1 to \(NameSearch.maxLimit).")
            }
            limit = number
        }
        try self.init(text, limit: limit)
    }

    /// The query string's parameters.
    public var parameters: [(name: String, value: String)] { [("q", text), ("limit", "\(limit)")] }
}

/// Which name of a user matched, and where in it.
public struct NameField: Codable, Hashable, Sendable {
    /// `remark` (the caller's own name for a contact), `nickname` or `username`.
    public var field: String
    public var highlights: [TextRange]

    public static let remark = "remark"
    public static let nickname = "nickname"
    public static let username = "username"

    public init(field: String, highlights: [TextRange]) {
        self.field = field
        self.highlights = highlights
    }
}

/// A user's matching names and the best tier among them.
public struct NameMatch: Hashable, Sendable {
    public var tier: Int
    public var fields: [NameField]
}

/// `GET /v1/search/contacts`: a contact and which of its names matched.
public struct ContactSearchHit: Codable, Hashable, Sendable {
    public var contact: Contact
    public var matched: [NameField]

    public init(contact: Contact, matched: [NameField]) {
        self.contact = contact
        self.matched = matched
    }
}

/// `GET /v1/search/contacts`: the matching contacts, best first.
public struct ContactSearchResult: Codable, Hashable, Sendable {
    public var contacts: [ContactSearchHit]

    public init(contacts: [ContactSearchHit]) { self.contacts = contacts }
}

/// A group as its search shows it: its id, name and size.
public struct GroupName: Codable, Hashable, Sendable {
    public var id: ConversationID
    public var name: String
    public var memberCount: Int

    public init(id: ConversationID, name: String, memberCount: Int) {
        self.id = id
        self.name = name
        self.memberCount = memberCount
    }
}

/// A member of one of the caller's groups whose name may match a search.
public struct GroupMemberName: Hashable, Sendable {
    public var conversationId: ConversationID
    public var user: User

    public init(conversationId: ConversationID, user: User) {
        self.conversationId = conversationId
        self.user = user
    }
}

/// A member of a group found by their name, and which of their names matched.
public struct MatchedMember: Codable, Hashable, Sendable {
    public var user: User
    public var matched: [NameField]
}

/// `GET /v1/search/groups`: a group found by its name (`nameHighlights` not empty) or by
/// members' names (`members`, at most ``NameSearch/membersPerGroup``), or both.
public struct GroupSearchHit: Codable, Hashable, Sendable {
    public var group: GroupName
    public var nameHighlights: [TextRange]
    public var members: [MatchedMember]
}

/// `GET /v1/search/groups`: the matching groups, best first.
public struct GroupSearchResult: Codable, Hashable, Sendable {
    public var groups: [GroupSearchHit]

    public init(groups: [GroupSearchHit]) { self.groups = groups }
}
