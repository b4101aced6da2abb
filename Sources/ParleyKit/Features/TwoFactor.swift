import ParleyCore

/// A login needs a second step: the account has two-factor login. Ask the person for a code
/// from their authenticator app (or a recovery code) and pass it with ``challenge`` to
/// ``Session/completeLogin(_:code:)`` before ``SecondFactorChallenge/expiresAt``.
public struct SecondFactorRequired: Error, Sendable {
    public let challenge: SecondFactorChallenge
}

/// Two-factor login for the signed-in user (`client.twoFactor`): whether it is on, turning it
/// on (a secret for the authenticator app, confirmed by its first code, which answers the
/// recovery codes) and off (with a code).
public struct TwoFactor: Sendable {
    let session: Session

    public func status() async throws -> TwoFactorStatus {
        try await session.http(.getTwoFactor)
    }

    /// A new secret and its `otpauth://` URI for the app; not on until ``confirm(code:)``.
    /// `two_factor_enabled` when it is on already.
    public func setUp() async throws -> TwoFactorSetup {
        try await session.http(.setUpTwoFactor)
    }

    /// Turns two-factor login on with the app's current code; answers the one-time recovery
    /// codes, shown to the person once.
    public func confirm(code: String) async throws -> RecoveryCodes {
        try await session.http(.confirmTwoFactor, body: TwoFactorCodeRequest(code: code))
    }

    /// Turns two-factor login off with a code from the app or a recovery code.
    public func disable(code: String) async throws {
        let _: APIClient.Empty = try await session.http(.disableTwoFactor, body: TwoFactorCodeRequest(code: code))
    }
}
