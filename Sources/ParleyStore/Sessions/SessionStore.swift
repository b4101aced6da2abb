import ParleyCore

/// Login sessions and their token pairs.
public protocol SessionStore: Sendable {
    /// Opens a session and, in the same transaction, keeps its `login` in the user's security
    /// log (with the session's device, address and time): a session never exists without it.
    func createSession(_ session: NewSession) async throws -> SessionRecord
    /// The live session whose access token hashes to `accessTokenHash`, or nil when unknown,
    /// revoked or expired at `now`. Notes the use (see ``SessionRules/shouldNoteUse(lastUsedAt:now:)``).
    func session(accessTokenHash: String, at now: Int64) async throws -> SessionRecord?
    /// Replaces the tokens of the live session holding `refreshTokenHash`; nil when unknown,
    /// revoked or expired. A refresh token works once: presenting one that was already
    /// rotated away (a stolen copy, or the thief's after the owner's) revokes the session it
    /// belonged to, publishing ``StoreChange/sessionRevoked(_:)``, and answers nil.
    func rotateTokens(refreshTokenHash: String, to tokens: SessionTokens, at now: Int64) async throws -> SessionRecord?
    /// All sessions of a user, newest first, revoked ones included.
    func sessions(of userId: UserID) async throws -> [SessionRecord]
    /// Revokes a session of `userId`; false when it does not exist or was already revoked.
    /// Publishes ``StoreChange/sessionRevoked(_:)``.
    func revokeSession(_ id: SessionID, of userId: UserID, at now: Int64) async throws -> Bool
}
