import Foundation
import GRDB
import ParleyCore

/// The user's contacts (`client.contacts`): finding people, friend requests, friends with
/// remarks and friend groups, and blocking.
///
/// Every answer of the server is saved in the ``ClientStore`` at once, and the events the
/// server sends (`friend_request.updated`, `contact.updated`, `contact.removed`,
/// `friend_group.updated`, `friend_group.removed`, `block.added`, `block.removed`) keep it current while connected and through sync after
/// being offline; the whole book is fetched after a snapshot sync (a new device's first), or
/// by ``refresh()``. ``book()``
/// and ``updates()`` read it from the store, so the contact screen works offline.
public struct Contacts: Sendable {
    let store: ClientStore
    let session: Session

    /// The user called `username` (any case); `user_not_found` also when they hide from it
    /// or either of you blocked the other.
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

    /// One page of users whose nickname holds `query` (case, accents and width folded), best matches
    /// first; pass the page's `nextCursor` for the next.
    public func search(_ query: String, cursor: String? = nil, limit: Int? = nil) async throws -> UserSearchPage {
        var parameters = ["q": query]
        parameters["cursor"] = cursor
        parameters["limit"] = limit.map(String.init)
        let page: UserSearchPage = try await session.http(.searchUsers, query: parameters)
        for user in page.users { try store.saveUser(user) }
        return page
    }

    /// People you may know, most mutual friends first, each with the reason
    /// (``Recommendation/reason``); at most `limit` (1 to ``ContactLimits/maxRecommendations``).
    public func recommendations(limit: Int? = nil) async throws -> [Recommendation] {
        let list: RecommendationList = try await session.http(
            .recommendContacts, query: limit.map { ["limit": String($0)] } ?? [:])
        for recommendation in list.recommendations { try store.saveUser(recommendation.user) }
        return list.recommendations
    }

    /// The contact book as held now.
    public func book() async throws -> ContactBook {
        try store.contactBook(of: try await me(), at: Self.now())
    }

    /// The contact book now, then again after every change to it.
    public func updates() async throws -> AsyncValueObservation<ContactBook> {
        store.observeContactBook(of: try await me(), now: { Self.now() })
    }

    /// Fetches friends, friend groups, open requests and blocks from the server and replaces
    /// what is held. A contact event that arrives while the four lists are fetched may be
    /// missing from them, so the fetch starts again then (three times at most, then
    /// `unavailable`).
    @discardableResult
    public func refresh() async throws -> ContactBook {
        for _ in 0..<3 {
            let mark = try store.contactEventMark()
            let contacts: ContactList = try await session.http(.listContacts)
            let groups: FriendGroupList = try await session.http(.listFriendGroups)
            let requests: FriendRequestList = try await session.http(.listFriendRequests)
            let blocks: BlockList = try await session.http(.listBlocks)
            if try store.replaceContacts(
                contacts.contacts, groups: groups.groups, requests: requests, blocked: blocks.blocked,
                unchangedSince: mark)
            {
                return try await book()
            }
        }
        throw ParleyError(.unavailable, "The contacts kept changing while they were fetched; try again.")
    }

    /// ``refresh()``, unless the book was fetched since the last snapshot sync; the client
    /// calls it after every catch-up.
    package func refreshIfUnknown() async throws {
        if try !store.contactsAreKnown() { try await refresh() }
    }

    /// Asks `userId` to be friends with an optional message (at most
    /// ``ContactLimits/maxRequestMessageLength`` characters). The answer is `pending`, or
    /// `accepted` when they take anyone or had asked you already (the new friend then
    /// arrives as a `contact.updated` event).
    @discardableResult
    public func sendRequest(to userId: UserID, message: String = "") async throws -> FriendRequest {
        try saved(await session.http(.sendFriendRequest, body: SendFriendRequest(userId: userId, message: message)))
    }

    /// Accepts request `id`: you become friends and your direct conversation opens.
    @discardableResult
    public func accept(_ id: FriendRequestID) async throws -> FriendRequest { try await answer(id, .accept) }

    /// Rejects request `id`; its sender is told.
    @discardableResult
    public func reject(_ id: FriendRequestID) async throws -> FriendRequest { try await answer(id, .reject) }

    /// Puts request `id` aside without telling its sender; it can still be accepted until it expires.
    @discardableResult
    public func ignore(_ id: FriendRequestID) async throws -> FriendRequest { try await answer(id, .ignore) }

    /// Sets your remark (alias) for friend `userId`; "" removes it.
    @discardableResult
    public func setRemark(_ remark: String, for userId: UserID) async throws -> Contact {
        let contact: Contact = try await session.http(
            .updateContact, userId, body: UpdateContactRequest(remark: remark))
        try store.saveContact(contact)
        return contact
    }

    /// Puts friend `userId` in exactly the friend groups `groups` (`[]`: in none).
    @discardableResult
    public func setGroups(_ groups: [FriendGroupID], for userId: UserID) async throws -> Contact {
        let contact: Contact = try await session.http(
            .updateContact, userId, body: UpdateContactRequest(groups: groups))
        try store.saveContact(contact)
        return contact
    }

    /// Makes a friend group (at most ``ContactLimits/maxFriendGroups``, names unique).
    @discardableResult
    public func createGroup(named name: String) async throws -> FriendGroup {
        let group: FriendGroup = try await session.http(.createFriendGroup, body: FriendGroupRequest(name: name))
        try store.saveFriendGroup(group)
        return group
    }

    /// Renames friend group `id`.
    @discardableResult
    public func renameGroup(_ id: FriendGroupID, to name: String) async throws -> FriendGroup {
        let group: FriendGroup = try await session.http(.renameFriendGroup, id, body: FriendGroupRequest(name: name))
        try store.saveFriendGroup(group)
        return group
    }

    /// Deletes friend group `id`; its friends stay friends.
    public func deleteGroup(_ id: FriendGroupID) async throws {
        let _: APIClient.Empty = try await session.http(.deleteFriendGroup, id)
        try store.removeFriendGroup(id)
    }

    /// Ends the friendship with `userId` on both sides; your direct conversation with them is
    /// hidden and cleared for you (they keep theirs).
    public func remove(_ userId: UserID) async throws {
        let _: APIClient.Empty = try await session.http(.removeContact, userId)
        try store.removeContact(userId)
    }

    /// Blocks `userId`: they can no longer message you, ask to be friends or find you, and
    /// stop being your friend.
    @discardableResult
    public func block(_ userId: UserID) async throws -> BlockedUser {
        let blocked: BlockedUser = try await session.http(.blockUser, userId)
        try store.saveBlock(blocked)
        return blocked
    }

    /// Lifts a block (the friendship does not come back).
    public func unblock(_ userId: UserID) async throws {
        let _: APIClient.Empty = try await session.http(.unblockUser, userId)
        try store.removeBlock(userId)
    }

    private func answer(_ id: FriendRequestID, _ answer: FriendRequestAnswer) async throws -> FriendRequest {
        try saved(await session.http(.answerFriendRequest, id, body: AnswerFriendRequest(answer: answer)))
    }

    private func saved(_ request: FriendRequest) throws -> FriendRequest {
        try store.saveFriendRequest(request)
        return request
    }

    private func lookup(_ query: [String: String]) async throws -> User {
        let user: User = try await session.http(.lookupUser, query: query)
        try store.saveUser(user)
        return user
    }

    private func me() async throws -> UserID {
        guard let user = await session.currentUser else { throw ParleyError(.unauthenticated, "Not logged in.") }
        return user.id
    }

    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
