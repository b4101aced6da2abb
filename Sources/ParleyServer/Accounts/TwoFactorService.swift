import Foundation
import ParleyCore
import ParleyStore

/// Two-factor login with TOTP (RFC 6238: SHA-1, six digits, 30-second steps, one step of
/// drift either way): enrolment confirmed by a first code, one-time recovery codes, the
/// login's second step, and turning it off with a code. A code works once (its step is
/// noted); wrong codes count toward a lock of `loginLockout` after `maxFailedLogins` in a
/// row, kept in the store so that every node sees it.
struct TwoFactorService: Sendable {
    static let issuer = "Parley"
    static let recoveryCodeCount = 10
    /// How long the first step of a login waits for its second.
    static let challengeLifetime: Int64 = 5 * 60_000

    let store: any ParleyStore
    let clock: WallClock
    let configuration: ServerConfiguration
    let challenges: SharedSecretSigner
    let audit: SecurityAudit

    init(store: any ParleyStore, clock: WallClock, configuration: ServerConfiguration, audit: SecurityAudit) {
        self.store = store
        self.clock = clock
        self.configuration = configuration
        self.audit = audit
        challenges = SharedSecretSigner(store: store, name: "login_challenges")
    }

    func status(of userId: UserID) async throws -> TwoFactorStatus {
        let record = try await store.twoFactor(of: userId)
        let enabled = record?.enabledAt != nil
        return TwoFactorStatus(enabled: enabled, recoveryCodesLeft: enabled ? record?.recoveryCodesLeft ?? 0 : 0)
    }

    /// A new secret for `username`'s authenticator app; on only once a code confirms it.
    func setUp(for userId: UserID, username: String) async throws -> TwoFactorSetup {
        var generator = SystemRandomNumberGenerator()
        let secret = Base32.encode((0..<20).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        guard try await store.beginTwoFactor(userId, secret: secret, at: clock.now()) else {
            throw ParleyError(.twoFactorEnabled, "Two-factor login is on already; turn it off first to start again.")
        }
        let label =
            Self.issuer + ":"
            + (username.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["-", ".", "_", "~"])) ?? "")
        return TwoFactorSetup(
            secret: secret,
            uri: "otpauth://totp/\(label)?secret=\(secret)&issuer=\(Self.issuer)&algorithm=SHA1&digits=6&period=30")
    }

    /// Turns two-factor login on with the first code from the app; answers the recovery codes.
    func confirm(_ code: String, for userId: UserID, ip: String) async throws -> RecoveryCodes {
        guard let record = try await store.twoFactor(of: userId) else {
            throw ParleyError(.twoFactorNotPending, "Start with POST /v1/me/two-factor: there is nothing to confirm.")
        }
        guard record.enabledAt == nil else { throw ParleyError(.twoFactorEnabled, "Two-factor login is on already.") }
        try checkNotLocked(record)
        let now = clock.now()
        let codes = (0..<Self.recoveryCodeCount).map { _ in Self.makeRecoveryCode() }
        guard let step = Self.totp(record).matchingStep(of: Self.normalized(code), at: now),
            try await store.enableTwoFactor(
                userId, step: step, recoveryCodeHashes: codes.map(Self.recoveryHash), at: now)
        else { throw try await failure(userId, "The code is not the one the app shows now.") }
        try await audit.note(.twoFactorEnabled, of: userId, ip: ip)
        return RecoveryCodes(recoveryCodes: codes)
    }

    /// Turns two-factor login off, with a code from the app or a recovery code.
    func disable(_ code: String, for userId: UserID, ip: String) async throws {
        guard let record = try await store.twoFactor(of: userId), record.enabledAt != nil else {
            throw ParleyError(.twoFactorNotEnabled, "Two-factor login is not on.")
        }
        try await check(code, record, ip: ip)
        if try await store.disableTwoFactor(userId) { try await audit.note(.twoFactorDisabled, of: userId, ip: ip) }
    }

    /// Checks a code for an action that needs one when two-factor login is on (deleting the
    /// account); with it off, there is nothing to check.
    func verify(_ code: String?, for userId: UserID, ip: String) async throws {
        guard let record = try await store.twoFactor(of: userId), record.enabledAt != nil else { return }
        guard let code else {
            throw ParleyError(
                .missingField, "Give 'code': a code from your authenticator app or a recovery code.")
        }
        try await check(code, record, ip: ip)
    }

    /// Whether a login of `userId` needs a second step.
    func isEnabled(for userId: UserID) async throws -> Bool {
        try await store.twoFactor(of: userId)?.enabledAt != nil
    }

    /// The first step of a login passed: a signed challenge naming the user and the device,
    /// which any node checks.
    func challenge(for userId: UserID, device: String) async throws -> SecondFactorChallenge {
        let expiresAt = clock.now() + Self.challengeLifetime
        let device = Data(device.utf8).base64URLEncoded
        let text = "\(userId.rawValue).\(expiresAt).\(device)"
        return SecondFactorChallenge(challenge: text + "." + (try await challenges.sign(text)), expiresAt: expiresAt)
    }

    /// The second step: checks the challenge and the code; answers whom to sign in, on which device.
    func redeem(_ request: SecondFactorRequest, ip: String) async throws -> (userId: UserID, device: String) {
        let parts = request.challenge.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, let user = Int64(parts[0]), let expiresAt = Int64(parts[1]),
            let device = Data(base64URL: parts[2]).map({ String(decoding: $0, as: UTF8.self) }),
            try await challenges.isSignature(parts[3], of: parts[0...2].joined(separator: "."))
        else { throw ParleyError(.challengeInvalid, "This login challenge is not valid; log in again.") }
        guard expiresAt > clock.now() else {
            throw ParleyError(.challengeInvalid, "This login challenge has expired; log in again.")
        }
        let userId = UserID(user)
        guard let record = try await store.twoFactor(of: userId), record.enabledAt != nil else {
            throw ParleyError(.challengeInvalid, "Two-factor login was turned off meanwhile; log in again.")
        }
        try await check(request.code, record, ip: ip)
        return (userId, device)
    }

    // MARK: Codes

    /// Accepts a code from the app (once per step) or an unused recovery code; counts a
    /// wrong one.
    private func check(_ code: String, _ record: TwoFactorRecord, ip: String) async throws {
        try checkNotLocked(record)
        let code = Self.normalized(code)
        let now = clock.now()
        if code.count == 6, code.allSatisfy(\.isASCIIDigit) {
            guard let step = Self.totp(record).matchingStep(of: code, at: now) else {
                throw try await failure(record.userId, "The code is not the one the app shows now.")
            }
            guard try await store.useTwoFactorStep(record.userId, step: step) else {
                throw try await failure(record.userId, "This code was used already; wait for the next one.")
            }
        } else {
            guard try await store.useRecoveryCode(record.userId, hash: Self.recoveryHash(code), at: now) else {
                throw try await failure(record.userId, "This recovery code is not one of yours, or was used already.")
            }
            try await audit.note(.recoveryCodeUsed, of: record.userId, ip: ip)
        }
    }

    private func checkNotLocked(_ record: TwoFactorRecord) throws {
        if let until = record.lockedUntil, until > clock.now() { throw locked(until: until) }
    }

    /// Counts a wrong code: the error to throw (`too_many_attempts` once it locked).
    private func failure(_ userId: UserID, _ message: String) async throws -> any Error {
        let lockedUntil = clock.now() + configuration.loginLockout.milliseconds
        if let until = try await store.noteTwoFactorFailure(
            userId, limit: configuration.maxFailedLogins, lockedUntil: lockedUntil)
        {
            audit.log("two-factor codes locked", ["user": "\(userId)", "until": "\(until)"])
            return locked(until: until)
        }
        return ParleyError(.codeInvalid, message)
    }

    private func locked(until: Int64) -> RetryLaterError {
        RetryLaterError(.tooManyAttempts, until: until, now: clock.now()) {
            "Too many wrong codes; try again in \($0)."
        }
    }

    private static func totp(_ record: TwoFactorRecord) -> TOTP { TOTP(secret: Base32.decode(record.secret) ?? []) }

    /// Digits and letters only, lower-case: `123 456` and `ABCDE-FGHIJ` as typed.
    private static func normalized(_ code: String) -> String {
        String(code.lowercased().filter { $0.isASCIIDigit || ("a"..."z").contains($0) })
    }

    /// Ten characters from an alphabet without look-alikes (about 49 bits), shown `xxxxx-xxxxx`.
    private static func makeRecoveryCode() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<10).map { _ in alphabet.randomElement(using: &generator)! }
        return String(characters[0..<5]) + "-" + String(characters[5...])
    }

    private static func recoveryHash(_ code: String) -> String { SessionToken.hash("recovery:" + normalized(code)) }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
