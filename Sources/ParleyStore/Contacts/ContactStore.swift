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
    /// The open requests to the user (pending and ignored apart, the newest
    /// ``ContactLimits/maxListedIncoming`` of each) and from them, newest first.
    func friendRequests(of userId: UserID, at now: Int64) async throws -> FriendRequestList
    /// The user's friends by id, or only those in friend group `group` (theirs, else
    /// `friend_group_not_found`).
    func contacts(of userId: UserID, in group: FriendGroupID?) async throws -> [Contact]
    /// Sets the owner's remark for a friend and/or the set of the owner's friend groups they
    /// are in (each the owner's, else `friend_group_not_found`); `contact_not_found` if they
    /// are not friends. `contact.updated` to the owner.
    func updateContact(
        of owner: UserID, _ friend: UserID, remark: String?, groups: [FriendGroupID]?, at now: Int64
    ) async throws -> Contact
    /// Up to `limit` people `userId` may know, ranked by mutual friends then shared groups
    /// (then by id); never a friend, anyone blocked either way, anyone who rejected their
    /// request, anyone they are asking already (at `now`), anyone who takes no requests, or
    /// anyone who hides from nickname search.
    func recommendations(for userId: UserID, limit: Int, at now: Int64) async throws -> [Recommendation]
    /// The user's friend groups, oldest first.
    func friendGroups(of userId: UserID) async throws -> [FriendGroup]
    /// Makes a friend group (`friend_group_exists`, `too_many_friend_groups`), with
    /// `friend_group.updated` to its owner.
    func createFriendGroup(of owner: UserID, name: String, at now: Int64) async throws -> FriendGroup
    /// Renames one of the owner's friend groups, with `friend_group.updated`.
    func renameFriendGroup(_ id: FriendGroupID, of owner: UserID, name: String, at now: Int64) async throws
        -> FriendGroup
    /// Deletes one of the owner's friend groups (its friends leave it), with `friend_group.removed`.
    func deleteFriendGroup(_ id: FriendGroupID, of owner: UserID, at now: Int64) async throws
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
    /// Those of `others` who blocked `user` or whom `user` blocked.
    func blocked(between user: UserID, and others: [UserID]) async throws -> Set<UserID>
}
