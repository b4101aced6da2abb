import ParleyCore

/// Users and their profiles.
public protocol AccountStore: Sendable {
    /// Stores a new user; throws `username_taken`, `email_taken` or `phone_taken`.
    func createUser(_ user: NewUser) async throws -> UserRecord
    /// Finds a user by username, email (case-insensitive) or phone (see ``LoginKey``).
    func findUser(login: String) async throws -> UserRecord?
    func user(id: UserID) async throws -> UserRecord?
    func user(username: String) async throws -> UserRecord?
    /// Applies `update` (validated) as ``UserRecord/updated(by:)`` does; appends a
    /// `profile.updated` event for the user.
    func updateProfile(userId: UserID, _ update: ProfileUpdate, at now: Int64) async throws -> UserRecord
}
