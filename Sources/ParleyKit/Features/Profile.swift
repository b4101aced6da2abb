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

    /// Sends a six-digit code: to the account's email or phone to verify it (`verify_email`,
    /// `verify_phone`), or to a new one that is to replace it (`change_email`,
    /// `change_phone`, with `destination`). Another for the same purpose may be asked for from
    /// the answer's `resendAt` (`rate_limited` before).
    @discardableResult
    public func requestCode(_ purpose: VerificationPurpose, to destination: String? = nil) async throws
        -> VerificationCodeSent
    {
        try await session.http(
            .requestVerification, body: VerificationCodeRequest(purpose: purpose, destination: destination))
    }

    /// Uses a code from ``requestCode(_:to:)``: the address is verified, or replaces the old
    /// one. `code_invalid` for a wrong, used or expired code (five wrong tries end it).
    @discardableResult
    public func confirmCode(_ code: String, for purpose: VerificationPurpose) async throws -> Account {
        let account: Account = try await session.http(
            .confirmVerification, body: VerificationConfirmRequest(purpose: purpose, code: code))
        try store.saveUser(account.user)
        return account
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
