import ParleyCore

/// Users and their profiles.
public protocol AccountStore: Sendable {
    /// Stores a new user; throws `username_taken`, `email_taken` or `phone_taken`.
    func createUser(_ user: NewUser) async throws -> UserRecord
    /// Finds a user by username, email (case-insensitive) or phone (see ``LoginKey``).
    func findUser(login: String) async throws -> UserRecord?
    func user(id: UserID) async throws -> UserRecord?
    func user(username: String) async throws -> UserRecord?
    /// The user `key` names (a username, email or phone), whoever is looking.
    func user(key: LoginKey) async throws -> UserRecord?
    /// Applies `update` (validated) as ``UserRecord/updated(by:)`` does; appends a
    /// `profile.updated` event for the user.
    func updateProfile(userId: UserID, _ update: ProfileUpdate, at now: Int64) async throws -> UserRecord
    /// Applies `update` to the user's privacy settings; appends a `profile.updated` event
    /// (whose account carries them) for the user.
    func updatePrivacy(userId: UserID, _ update: UpdatePrivacyRequest, at now: Int64) async throws -> UserRecord
    /// Replaces the user's password hash and revokes every other live session of theirs (but
    /// `keeping`), in one transaction, publishing ``StoreChange/sessionRevoked(_:)`` for
    /// each; answers how many it revoked.
    func changePassword(of userId: UserID, to hash: String, keeping session: SessionID, at now: Int64) async throws
        -> Int
    /// Ends an account, in one transaction: the user becomes "Deleted account" (username
    /// `deleted-<id>`, no email, phone, avatar or other detail, found by nobody, a password
    /// that matches none), every session is revoked (``StoreChange/sessionRevoked(_:)``), and
    /// push tokens, two-factor login, codes and the security log are dropped. Messages stay.
    /// Answers false when it was deleted already.
    func deleteAccount(_ userId: UserID, at now: Int64) async throws -> Bool
    /// Users other than `seeker` who may be found by nickname and whose folded nickname
    /// (``SearchText/fold(_:)``) holds `query` (folded too): the whole nickname first,
    /// then those starting with it, then the rest, each by id; `limit` from `offset`.
    func searchUsers(nickname query: String, for seeker: UserID, offset: Int, limit: Int) async throws
        -> [UserRecord]
}
