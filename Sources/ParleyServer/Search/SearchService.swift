import ParleyCore
import ParleyStore

/// Search: messages the caller may read that hold every term, best first, with where the
/// terms are (``SearchText``, ``MessageSearchPage``); the caller's contacts and groups by
/// name (``NameSearch``).
struct SearchService: Sendable {
    let store: any ParleyStore

    /// How many members of the caller's groups a group search looks at, at most: a query that
    /// matches more finds groups by the first of them (by group, then member).
    static let memberCandidates = 1_000

    func searchMessages(_ query: MessageSearchQuery, for identity: Identity) async throws -> MessageSearchPage {
        MessageSearchPage(query, found: try await store.searchMessages(query, for: identity.userId))
    }

    func searchContacts(_ query: NameSearchQuery, for identity: Identity) async throws -> ContactSearchResult {
        let contacts = try await store.contacts(of: identity.userId, in: nil)
        return ContactSearchResult(contacts: NameSearch.contacts(contacts, matching: query))
    }

    func searchGroups(_ query: NameSearchQuery, for identity: Identity) async throws -> GroupSearchResult {
        let groups = try await store.groupNames(of: identity.userId)
        let members = try await store.groupMembers(
            of: identity.userId, matching: query.terms, limit: Self.memberCandidates)
        return GroupSearchResult(groups: NameSearch.groups(groups, members: members, matching: query))
    }
}
