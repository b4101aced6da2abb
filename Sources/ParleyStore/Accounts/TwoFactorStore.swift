import ParleyCore

/// A user's two-factor login (TOTP): the shared secret, whether it is on, the last time
/// step a code was used for (a code works once), and the wrong codes counted toward a lock.
public struct TwoFactorRecord: Sendable, Hashable {
    public var userId: UserID
    /// Base32, as authenticator apps take it.
    public var secret: String
    /// Nil while the enrolment waits for its first code.
    public var enabledAt: Int64?
    /// The latest time step a code was accepted for; -1 before any.
    public var lastStep: Int64
    public var failures: Int
    /// Until when codes are refused after too many wrong ones.
    public var lockedUntil: Int64?
    public var recoveryCodesLeft: Int

    public init(
        userId: UserID, secret: String, enabledAt: Int64?, lastStep: Int64, failures: Int, lockedUntil: Int64?,
        recoveryCodesLeft: Int
    ) {
        self.userId = userId
        self.secret = secret
        self.enabledAt = enabledAt
        self.lastStep = lastStep
        self.failures = failures
        self.lockedUntil = lockedUntil
        self.recoveryCodesLeft = recoveryCodesLeft
    }
}

/// Two-factor login: enrolment, codes used once, recovery codes used once, wrong codes
/// counted. Every answer is decided inside one statement or transaction, so two nodes
/// checking the same code at once cannot both accept it.
public protocol TwoFactorStore: Sendable {
    func twoFactor(of userId: UserID) async throws -> TwoFactorRecord?
    /// Starts (or starts again) an enrolment with a new secret; false when two-factor login
    /// is already on.
    func beginTwoFactor(_ userId: UserID, secret: String, at now: Int64) async throws -> Bool
    /// Turns the pending enrolment on, noting `step` used and keeping the recovery codes'
    /// hashes; false when no enrolment is pending or `step` is not later than the last used.
    func enableTwoFactor(_ userId: UserID, step: Int64, recoveryCodeHashes: [String], at now: Int64) async throws
        -> Bool
    /// Turns two-factor login off and drops its recovery codes; false when it was not on.
    func disableTwoFactor(_ userId: UserID) async throws -> Bool
    /// Notes `step` used, and clears the wrong-code count, when it is later than the last
    /// step used; false for a step used already (a replayed code).
    func useTwoFactorStep(_ userId: UserID, step: Int64) async throws -> Bool
    /// Uses a recovery code (by its hash) once, clearing the wrong-code count; false when it
    /// is unknown or used.
    func useRecoveryCode(_ userId: UserID, hash: String, at now: Int64) async throws -> Bool
    /// Counts a wrong code. The `limit`th in a row locks codes out until `lockedUntil` (and
    /// starts the count again); answers that time when it locked, else nil.
    func noteTwoFactorFailure(_ userId: UserID, limit: Int, lockedUntil: Int64) async throws -> Int64?
}
