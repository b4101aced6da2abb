import ParleyCore

/// Finding people (`client.contacts`): exact lookups by username, email or phone, and a
/// paged search by nickname, as each user's privacy settings allow. Every user found is
/// kept in the ``ClientStore``, so their profile is at hand offline. (Friends, requests and
/// blocking join this facade as they arrive.)
public struct Contacts: Sendable {
    let store: ClientStore
    let session: Session

    /// The user called `username` (any case); `user_not_found` also when they hide from it.
    public func lookup(username: String) async throws -> User {
        try await lookup(["username": username])
    }

    /// The user with this email (ASCII case ignored), if they let others find them by it.
    public func lookup(email: String) async throws -> User {
        try await lookup(["email": email])
    }

    /// The user with this phone number (E.164), if they let others find them by it.
    public func lookup(phone: String) async throws -> User {
        try await lookup(["phone": phone])
    }

    /// One page of users whose nickname holds `query` (case and width folded), best matches
    /// first; pass the page's `nextCursor` for the next.
    public func search(_ query: String, cursor: String? = nil, limit: Int? = nil) async throws -> UserSearchPage {
        var parameters = ["q": query]
        parameters["cursor"] = cursor
        parameters["limit"] = limit.map(String.init)
        let page: UserSearchPage = try await session.http(.searchUsers, query: parameters)
        for user in page.users { try store.saveUser(user) }
        return page
    }

    private func lookup(_ query: [String: String]) async throws -> User {
        let user: User = try await session.http(.lookupUser, query: query)
        try store.saveUser(user)
        return user
    }
}
