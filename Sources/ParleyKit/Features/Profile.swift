import ParleyCore

/// The signed-in user's own profile (`client.profile`): nickname, signature, avatar, gender,
/// birthday and region, with the account's private email and phone.
///
/// A change goes to the server (`PATCH /v1/me`) and the profile it answers is saved in the
/// ``ClientStore`` at once; the user's other devices hear it as a `profile.updated` event,
/// live or through sync after being offline.
public struct Profile: Sendable {
    let store: ClientStore
    let session: Session

    /// The account as the server holds it now.
    public func me() async throws -> Account {
        let account: Account = try await session.http(.getMe)
        try store.saveUser(account.user)
        return account
    }

    /// Replaces the password, given the current one; every other device of the user is
    /// signed out (this one stays). `current_password_wrong` counts as a failed login.
    public func changePassword(current: String, new: String) async throws {
        let _: APIClient.Empty = try await session.http(
            .changePassword, body: ChangePasswordRequest(currentPassword: current, newPassword: new))
    }

    /// Who may find this user, and how.
    public func privacy() async throws -> PrivacySettings {
        try await session.http(.getPrivacy)
    }

    /// Changes the privacy settings `update` gives; the user's other devices hear a
    /// `profile.updated` event whose account carries them.
    @discardableResult
    public func updatePrivacy(_ update: UpdatePrivacyRequest) async throws -> PrivacySettings {
        try await session.http(.updatePrivacy, body: update)
    }

    /// Sets the fields `update` gives; an empty avatar, gender, birthday or region removes
    /// it. Checked on the server by ``AccountRules`` and ``ProfileRules``: each refusal names
    /// its field (`nickname_invalid`, `birthday_invalid`, …, or `text_not_allowed`).
    @discardableResult
    public func update(_ update: ProfileUpdate) async throws -> Account {
        let account: Account = try await session.http(.updateMe, body: update)
        try store.saveUser(account.user)
        return account
    }
}
