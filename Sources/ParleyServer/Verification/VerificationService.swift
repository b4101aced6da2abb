import Foundation
import ParleyCore
import ParleyStore

/// Verification codes (SPEC 2.1): six digits, sent by the channel's ``CodeSender``, bound to
/// one user, purpose and address, working for ``VerificationRules/codeLifetimeMs`` and for
/// ``VerificationRules/maxAttempts`` wrong tries, once. The store keeps only an HMAC of each
/// (under a secret the nodes share), and a new one for the same purpose waits
/// ``VerificationRules/resendIntervalMs``.
struct VerificationService: Sendable {
    let store: any ParleyStore
    let clock: WallClock
    let senders: CodeSenders
    let limiter: RateLimiter
    let audit: SecurityAudit
    private let hashes: SharedSecretSigner

    init(store: any ParleyStore, clock: WallClock, senders: CodeSenders, limiter: RateLimiter, audit: SecurityAudit) {
        self.store = store
        self.clock = clock
        self.senders = senders
        self.limiter = limiter
        self.audit = audit
        hashes = SharedSecretSigner(store: store, name: "verification_codes")
    }

    /// Sends a code for verifying the account's email or phone, or for replacing it.
    func request(_ request: VerificationCodeRequest, for userId: UserID, ip: String) async throws
        -> VerificationCodeSent
    {
        let purpose = try Self.accountPurpose(request.purpose)
        try await limiter.take(.codeIP, for: ip)
        try await limiter.take(.code, for: userId)
        guard let user = try await store.user(id: userId) else {
            throw ParleyError(.userNotFound, "Your account no longer exists.")
        }
        return try await send(
            purpose, to: try await destination(of: purpose, given: request.destination, user: user),
            by: purpose.channel, for: userId)
    }

    /// Uses a code asked for with ``request(_:for:ip:)``: answers the account with the address
    /// verified or replaced.
    func confirm(_ request: VerificationConfirmRequest, for userId: UserID, ip: String) async throws -> Account {
        let purpose = try Self.accountPurpose(request.purpose)
        let user = try await use(request.code, of: userId, for: purpose) { hash in
            try await store.useVerificationCode(of: userId, purpose: purpose, codeHash: hash, at: clock.now())
        }
        let kind: SecurityEventKind =
            switch purpose {
            case .verifyEmail: .emailVerified
            case .verifyPhone: .phoneVerified
            case .changeEmail: .emailChanged
            default: .phoneChanged
            }
        try await audit.note(kind, of: userId, ip: ip)
        return user.account
    }

    /// Sends a code for `purpose` to `destination`, unless one went out less than the resend
    /// interval ago: then throws `rate_limited` (a ``RetryLaterError``).
    @discardableResult
    func send(
        _ purpose: VerificationPurpose, to destination: String, by channel: VerificationChannel, for userId: UserID
    ) async throws -> VerificationCodeSent {
        let now = clock.now()
        let code = Self.makeCode()
        let hash = try await hash(code, of: userId, for: purpose, to: destination)
        let record = VerificationCodeRecord(
            userId: userId, purpose: purpose, destination: destination, codeHash: hash, sentAt: now,
            expiresAt: now + VerificationRules.codeLifetimeMs)
        if let sentAt = try await store.saveVerificationCode(
            record, unlessSentAfter: now - VerificationRules.resendIntervalMs)
        {
            throw RetryLaterError(.rateLimited, until: sentAt + VerificationRules.resendIntervalMs, now: now) {
                "A code went out moments ago; ask for another in \($0)."
            }
        }
        do {
            try await senders.sender(for: channel).send(
                CodeMessage(
                    channel: channel, to: destination, purpose: purpose, code: code, expiresAt: record.expiresAt))
        } catch {
            try? await store.dropVerificationCode(of: userId, purpose: purpose, codeHash: hash)
            audit.log(
                "verification code not delivered",
                ["user": "\(userId)", "channel": "\(channel)", "error": "\(String(describing: error))"])
            throw ParleyError(.unavailable, "The code could not be sent just now; try again in a while.")
        }
        audit.log("verification code sent", ["user": "\(userId)", "purpose": "\(purpose)", "channel": "\(channel)"])
        return VerificationCodeSent(
            purpose: purpose, channel: channel, destination: VerificationRules.masked(destination, channel: channel),
            expiresAt: record.expiresAt, resendAt: now + VerificationRules.resendIntervalMs)
    }

    /// Checks `code` against the pending code of `userId` for `purpose` and, when it matches,
    /// runs `apply` with its hash (the store uses the code in the same transaction as the
    /// change). A wrong code counts toward the code's tries.
    func use<T: Sendable>(
        _ code: String, of userId: UserID, for purpose: VerificationPurpose,
        apply: (_ codeHash: String) async throws -> T?
    ) async throws -> T {
        let digits = code.filter { !$0.isWhitespace && $0 != "-" }
        guard digits.count == VerificationRules.codeLength, digits.allSatisfy({ ("0"..."9").contains($0) }) else {
            throw ParleyError(.codeInvalid, "A code is \(VerificationRules.codeLength) digits.")
        }
        guard let pending = try await store.verificationCode(of: userId, purpose: purpose) else {
            throw ParleyError(.codeInvalid, "No code is waiting for this; ask for a new one.")
        }
        guard pending.expiresAt > clock.now() else {
            throw ParleyError(.codeInvalid, "This code has expired; ask for a new one.")
        }
        let hash = try await hash(digits, of: userId, for: purpose, to: pending.destination)
        guard Data(hash.utf8).constantTimeEquals(Data(pending.codeHash.utf8)) else {
            let alive = try await store.noteWrongVerificationCode(
                of: userId, purpose: purpose, maxAttempts: VerificationRules.maxAttempts)
            audit.log("verification code wrong", ["user": "\(userId)", "purpose": "\(purpose)"])
            throw ParleyError(
                .codeInvalid,
                alive ? "The code is wrong." : "The code is wrong, and that was its last try; ask for a new one.")
        }
        guard let applied = try await apply(hash) else {
            throw ParleyError(.codeInvalid, "This code no longer works; ask for a new one.")
        }
        return applied
    }

    /// Where a code for `purpose` goes: the account's own address to verify it, or the new
    /// one given to replace it (valid, and nobody else's).
    private func destination(of purpose: VerificationPurpose, given: String?, user: UserRecord) async throws -> String {
        let isEmail = purpose.channel == .email
        let noun = isEmail ? "email" : "phone"
        let current = isEmail ? user.email : user.phone
        if purpose == .verifyEmail || purpose == .verifyPhone {
            guard given == nil else {
                throw ParleyError(
                    .invalidField, "Leave out 'destination' for \(purpose): the code goes to your \(noun).")
            }
            guard let current else {
                throw ParleyError(
                    .nothingToVerify, "Your account has no \(noun); add one with 'change_\(noun)'.")
            }
            guard (isEmail ? user.emailVerifiedAt : user.phoneVerifiedAt) == nil else {
                throw ParleyError(.nothingToVerify, "Your \(noun) is verified already.")
            }
            return current
        }
        guard let given else {
            throw ParleyError(.missingField, "Give 'destination': the new \(noun) the code goes to.")
        }
        let destination: String
        if isEmail {
            try AccountRules.validateEmail(given)
            destination = AccountRules.canonicalEmail(given)
        } else {
            try AccountRules.validatePhone(given)
            destination = given
        }
        guard destination != current else {
            throw ParleyError(
                .nothingToVerify, "That is your \(noun) already; verify it with 'verify_\(noun)' if it is not.")
        }
        if try await store.user(key: isEmail ? LoginKey(email: destination) : LoginKey(phone: destination)) != nil {
            throw isEmail ? ParleyError.emailTaken() : ParleyError.phoneTaken()
        }
        return destination
    }

    private func hash(_ code: String, of userId: UserID, for purpose: VerificationPurpose, to destination: String)
        async throws -> String
    {
        try await hashes.sign("\(userId.rawValue)|\(purpose.rawValue)|\(destination)|\(code)")
    }

    private static func accountPurpose(_ text: String) throws -> VerificationPurpose {
        let purpose = VerificationPurpose(rawValue: text)
        guard VerificationPurpose.forAccount.contains(purpose) else {
            throw ParleyError(
                .invalidField,
                "'purpose' must be one of \(VerificationPurpose.forAccount.map { "'\($0)'" }.joined(separator: ", ")).")
        }
        return purpose
    }

    private static func makeCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<VerificationRules.codeLength).map { _ in "0123456789".randomElement(using: &generator)! })
    }
}
