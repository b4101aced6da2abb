import ParleyCore

/// Friends, friend requests and blocks. Every write checks ``ContactRules`` inside its
/// transaction and appends the events it causes to the users concerned.
public protocol ContactStore: Sendable {
    /// Asks `userId` to befriend `requester`, as ``ContactRules/decide(_:)`` says: a pending
    /// request (a second one merges: latest message, new expiry), or friends at once
    /// (`accepted`) when they take anyone or had asked the requester already. Answers the
    /// request as the requester sees it.
    func requestFriend(
        from requester: UserID, to userId: UserID, message: String, at now: Int64, expiresAt: Int64
    ) async throws -> FriendRequest
    /// The recipient accepts, rejects or ignores request `id` (``ContactRules/checkAnswer(_:by:_:at:)``).
    func answerFriendRequest(_ id: FriendRequestID, by userId: UserID, _ answer: FriendRequestAnswer, at now: Int64)
        async throws -> FriendRequest
    /// The open requests to (newest ``ContactLimits/maxListedIncoming``, ignored ones left out)
    /// and from the user, newest first.
    func friendRequests(of userId: UserID, at now: Int64) async throws -> FriendRequestList
    /// The user's friends by id.
    func contacts(of userId: UserID) async throws -> [Contact]
    /// Sets the owner's remark for a friend; `contact_not_found` if they are not friends.
    func updateContact(of owner: UserID, _ friend: UserID, remark: String, at now: Int64) async throws -> Contact
    /// Ends a friendship on both sides (`contact.removed` to both) and hides and clears the
    /// direct conversation for `owner` only; `contact_not_found` if they are not friends.
    func removeContact(of owner: UserID, _ friend: UserID, at now: Int64) async throws
    /// `blocker` blocks `userId` (nothing changes if they already did): their friendship ends,
    /// open requests between them close for the blocker, `block.added` to the blocker.
    func block(_ userId: UserID, by blocker: UserID, at now: Int64) async throws -> BlockedUser
    /// Lifts a block (nothing happens if there was none), `block.removed` to the blocker.
    func unblock(_ userId: UserID, by blocker: UserID, at now: Int64) async throws
    /// Everyone `userId` blocked, most recent first.
    func blockedUsers(of userId: UserID) async throws -> [BlockedUser]
    /// Whether either user blocked the other.
    func blockExists(between one: UserID, and other: UserID) async throws -> Bool
}
