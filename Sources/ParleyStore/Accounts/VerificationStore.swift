import ParleyCore

/// A verification code waiting to come back, kept only as a hash (``VerificationStore``).
public struct VerificationCodeRecord: Sendable, Hashable {
    public var userId: UserID
    public var purpose: VerificationPurpose
    /// The email or phone the code went to, canonical.
    public var destination: String
    /// An HMAC of the code under a server secret, bound to the user, purpose and destination.
    public var codeHash: String
    public var sentAt: Int64
    public var expiresAt: Int64
    /// Wrong tries so far.
    public var attempts: Int

    public init(
        userId: UserID, purpose: VerificationPurpose, destination: String, codeHash: String, sentAt: Int64,
        expiresAt: Int64, attempts: Int = 0
    ) {
        self.userId = userId
        self.purpose = purpose
        self.destination = destination
        self.codeHash = codeHash
        self.sentAt = sentAt
        self.expiresAt = expiresAt
        self.attempts = attempts
    }
}

/// Verification codes: at most one pending per user and purpose, used once, ended by too
/// many wrong tries. What a code does is written in the transaction that uses it, so a code
/// works once even when two nodes are given it at the same moment.
public protocol VerificationStore: Sendable {
    /// Keeps `code` as its user's pending code for its purpose, replacing an earlier one,
    /// unless the earlier one was sent after `resendBarrier`: then nothing changes and the
    /// answer is the earlier one's `sentAt`.
    func saveVerificationCode(_ code: VerificationCodeRecord, unlessSentAfter resendBarrier: Int64) async throws
        -> Int64?
    /// Forgets the pending code of `userId` for `purpose` if it is still `codeHash` (one that
    /// could not be delivered), so another may be asked for at once.
    func dropVerificationCode(of userId: UserID, purpose: VerificationPurpose, codeHash: String) async throws
    /// The pending code of `userId` for `purpose`, expired or not.
    func verificationCode(of userId: UserID, purpose: VerificationPurpose) async throws -> VerificationCodeRecord?
    /// Counts a wrong try; the `maxAttempts`th ends the code. False when it ended.
    func noteWrongVerificationCode(of userId: UserID, purpose: VerificationPurpose, maxAttempts: Int) async throws
        -> Bool
    /// Uses the code whose hash is `codeHash`, if it is pending and not expired, for a
    /// `verify_*` or `change_*` purpose: the email or phone becomes its destination, verified
    /// at `now`, and a `profile.updated` event goes to the user. A `verify_*` code whose
    /// address was replaced meanwhile no longer works. Answers nil (and changes nothing) for
    /// a code that does not work; throws `email_taken` or `phone_taken` (and keeps the code)
    /// when another account took the address meanwhile.
    func useVerificationCode(of userId: UserID, purpose: VerificationPurpose, codeHash: String, at now: Int64)
        async throws -> UserRecord?
    /// Uses a `reset_password` code as ``useVerificationCode(of:purpose:codeHash:at:)`` does:
    /// the password hash becomes `passwordHash` and every live session of the user is revoked
    /// (``StoreChange/sessionRevoked(_:)`` for each). Answers how many, or nil when the code
    /// does not work.
    func resetPassword(of userId: UserID, codeHash: String, to passwordHash: String, at now: Int64) async throws
        -> Int?
}
