import HummingbirdBcrypt
import Logging
import NIOPosix
import ParleyCore
import ParleyStore

/// Registration, login, tokens, sessions and the profile: the rules of SPEC 2.1 over a store.
public struct AccountService: Sendable {
    let store: any ParleyStore
    let clock: WallClock
    let configuration: ServerConfiguration
    /// The sensitive-word filter usernames, nicknames and signatures must pass.
    let words: WordFilter
    let throttle: LoginThrottle
    let twoFactor: TwoFactorService
    /// What happens to accounts goes to the user's security log and, as structured lines with
    /// no secret in them, to this logger.
    let audit: SecurityAudit
    /// Codes that verify an email or phone, replace one, or reset a password.
    let verification: VerificationService
    let limiter: RateLimiter
    /// Verified against when a login names no user, so that unknown and known logins take equally long.
    private let decoyHash: String

    init(
        store: any ParleyStore, clock: WallClock, configuration: ServerConfiguration, words: WordFilter,
        limiter: RateLimiter, codeSenders: CodeSenders, logger: Logger
    ) {
        self.limiter = limiter
        self.words = words
        self.store = store
        self.clock = clock
        self.configuration = configuration
        self.throttle = LoginThrottle(
            maxFailures: configuration.maxFailedLogins, maxFailuresPerIP: configuration.maxFailedLoginsPerIP,
            lockoutMilliseconds: configuration.loginLockout.milliseconds)
        self.decoyHash = Bcrypt.hash("decoy-password", cost: configuration.bcryptCost)
        audit = SecurityAudit(store: store, clock: clock, logger: logger)
        twoFactor = TwoFactorService(store: store, clock: clock, configuration: configuration, audit: audit)
        verification = VerificationService(
            store: store, clock: clock, senders: codeSenders, limiter: limiter, audit: audit)
    }

    /// What a password login answers: a session, or a second step for two-factor login.
    enum LoginAnswer {
        case session(TokenResponse)
        case secondFactor(SecondFactorChallenge)
    }

    func register(_ request: RegisterRequest, ip: String) async throws -> Account {
        try AccountRules.validateUsername(request.username)
        try AccountRules.validatePassword(request.password)
        if let email = request.email { try AccountRules.validateEmail(email) }
        if let phone = request.phone { try AccountRules.validatePhone(phone) }
        if let nickname = request.nickname { try AccountRules.validateNickname(nickname) }
        try words.check(request.username, field: "username")
        if let nickname = request.nickname { try words.check(nickname, field: "nickname") }
        try await limiter.take(.register, for: ip)
        let hash = try await hashPassword(request.password)
        let user = try await store.createUser(
            NewUser(
                username: request.username, email: request.email, phone: request.phone, passwordHash: hash,
                nickname: request.nickname ?? request.username, createdAt: clock.now()))
        return user.account
    }

    /// Checks a password login, counting failures per account and per IP (``LoginThrottle``);
    /// an account with two-factor login gets a challenge for the second step instead of a
    /// session.
    func login(_ request: LoginRequest, ip: String) async throws -> LoginAnswer {
        try Self.checkLoginField(request.login)
        try AccountRules.validatePasswordForm(request.password)
        let device = try AccountRules.validateDeviceName(request.device ?? "unknown")
        try await limiter.take(.login, for: ip)
        let user = try await store.findUser(login: request.login).flatMap { $0.deletedAt == nil ? $0 : nil }
        let account = user.map { "user:\($0.id)" } ?? "login:\(AccountRules.canonicalUsername(request.login))"
        try await limiter.take(.loginAccount, for: account)
        let attempt = try await throttle.begin(account: account, ip: ip, clock: clock)
        let valid: Bool
        do {
            valid = try await verifyPassword(request.password, hash: user?.passwordHash ?? decoyHash)
        } catch {
            throttle.finish(attempt, .abandoned, now: clock.now())
            throw error
        }
        let now = clock.now()
        throttle.finish(attempt, valid && user != nil ? .succeeded : .failed, now: now)
        guard let user, valid else {
            audit.log("login failed", ["account": "\(account)", "ip": "\(ip)"])
            throw ParleyError(.invalidCredentials, "The login or password is wrong.")
        }
        if try await twoFactor.isEnabled(for: user.id) {
            return .secondFactor(try await twoFactor.challenge(for: user.id, device: device))
        }
        return .session(try await openSession(for: user, device: device, ip: ip))
    }

    /// Replaces the password, given the current one, and signs every other device out (their
    /// sockets close at once). A wrong current password counts as a failed login of the
    /// account (``LoginThrottle``), so a stolen session cannot guess it.
    func changePassword(_ request: ChangePasswordRequest, by identity: Identity, ip: String) async throws {
        try AccountRules.validatePasswordForm(request.currentPassword)
        try AccountRules.validatePassword(request.newPassword)
        let user = try await checkPassword(
            request.currentPassword, of: identity, ip: ip, for: "password change",
            wrong: "The current password is wrong.")
        let hash = try await hashPassword(request.newPassword)
        let revoked = try await store.changePassword(
            of: user.id, to: hash, keeping: identity.sessionId, at: clock.now())
        try await audit.note(.passwordChanged, of: user.id, ip: ip, ["sessionsRevoked": "\(revoked)"])
    }

    /// Sends a code for setting a new password to the account's email (or, with none, its
    /// phone). Answers the same whether or not `login` names an account, or one with an
    /// address; a code asked for again within the resend interval is quietly not sent.
    func startPasswordReset(_ request: PasswordResetRequest, ip: String) async throws -> PasswordResetStarted {
        try Self.checkLoginField(request.login)
        try await limiter.take(.codeIP, for: ip)
        try await limiter.take(.code, for: "login:\(AccountRules.canonicalUsername(request.login))")
        let expiresAt = clock.now() + VerificationRules.codeLifetimeMs
        guard let user = try await store.findUser(login: request.login), user.deletedAt == nil,
            let address = user.email ?? user.phone
        else {
            audit.log("password reset for no address", ["ip": "\(ip)"])
            return PasswordResetStarted(expiresAt: expiresAt)
        }
        do {
            try await verification.send(
                .resetPassword, to: address, by: user.email == nil ? .phone : .email, for: user.id)
        } catch is RetryLaterError {
            // Sent moments ago: that code still works.
        }
        return PasswordResetStarted(expiresAt: expiresAt)
    }

    /// Sets a new password with a code from ``startPasswordReset(_:ip:)``; every session of
    /// the account ends (two-factor login, if on, still asks for its code at the next login).
    func confirmPasswordReset(_ request: PasswordResetConfirmRequest, ip: String) async throws {
        try Self.checkLoginField(request.login)
        try AccountRules.validatePassword(request.newPassword)
        guard let user = try await store.findUser(login: request.login) else {
            throw ParleyError(.codeInvalid, "No code is waiting for this; ask for a new one.")
        }
        let revoked = try await verification.use(request.code, of: user.id, for: .resetPassword) { codeHash in
            try await store.resetPassword(
                of: user.id, codeHash: codeHash, to: try await hashPassword(request.newPassword), at: clock.now())
        }
        try await audit.note(.passwordReset, of: user.id, ip: ip, ["sessionsRevoked": "\(revoked)"])
    }

    /// `login` names a user by username, email or phone: 1 to 254 characters, none a control character.
    private static func checkLoginField(_ login: String) throws {
        guard (1...AccountRules.emailMaxLength).contains(TextRules.length(login)),
            !TextRules.containsControlCharacter(login)
        else {
            throw ParleyError(
                .invalidField,
                "'login' must be a username, email or phone of 1 to \(AccountRules.emailMaxLength) characters with no control characters."
            )
        }
    }

    /// Deletes the caller's account, given its password (and a code when two-factor login is
    /// on): it leaves every group (handing a group it owns to the next admin, else the longest
    /// member, or dissolving it when alone), drops its friends, requests, blocks and friend
    /// groups, then ends as ``AccountStore/deleteAccount(_:at:)`` says. Each step is its own
    /// transaction and may be run again: a deletion cut short is finished by asking again.
    func deleteAccount(_ request: DeleteAccountRequest, by identity: Identity, ip: String) async throws {
        try AccountRules.validatePasswordForm(request.password)
        let user = try await checkPassword(
            request.password, of: identity, ip: ip, for: "account deletion", wrong: "The password is wrong.")
        try await twoFactor.verify(request.code, for: user.id, ip: ip)
        try await AccountDeletion(store: store, clock: clock).leaveEverything(user.id)
        guard try await store.deleteAccount(user.id, at: clock.now()) else { return }
        audit.log("account deleted", ["user": "\(user.id)", "ip": "\(ip)"])
    }

    /// Checks the caller's own password, counting a wrong one as a failed login of the account
    /// (``LoginThrottle``), so that a stolen session cannot guess it.
    private func checkPassword(
        _ password: String, of identity: Identity, ip: String, for action: String, wrong: String
    ) async throws -> UserRecord {
        guard let user = try await store.user(id: identity.userId), user.deletedAt == nil else {
            throw ParleyError(.userNotFound, "Your account no longer exists.")
        }
        let attempt = try await throttle.begin(account: "user:\(user.id)", ip: ip, clock: clock)
        let valid: Bool
        do {
            valid = try await verifyPassword(password, hash: user.passwordHash)
        } catch {
            throttle.finish(attempt, .abandoned, now: clock.now())
            throw error
        }
        throttle.finish(attempt, valid ? .succeeded : .failed, now: clock.now())
        guard valid else {
            audit.log("\(action) refused", ["user": "\(user.id)", "ip": "\(ip)"])
            throw ParleyError(.currentPasswordWrong, wrong)
        }
        return user
    }

    /// The second step of a two-factor login: the challenge and a code open the session.
    func completeLogin(_ request: SecondFactorRequest, ip: String) async throws -> TokenResponse {
        let (userId, device) = try await twoFactor.redeem(request, ip: ip)
        guard let user = try await store.user(id: userId) else {
            throw ParleyError(.challengeInvalid, "This account no longer exists.")
        }
        return try await openSession(for: user, device: device, ip: ip)
    }

    private func openSession(for user: UserRecord, device: String, ip: String) async throws -> TokenResponse {
        let now = clock.now()
        let (tokens, access, refresh) = makeTokens(now: now)
        let session = try await store.createSession(
            NewSession(userId: user.id, device: device, ip: ip, tokens: tokens, createdAt: now))
        audit.logKept(.login, of: user.id, device: device, ip: ip, ["session": "\(session.id)"])
        return TokenResponse(
            accessToken: access, accessTokenExpiresAt: tokens.accessExpiresAt, refreshToken: refresh,
            refreshTokenExpiresAt: tokens.refreshExpiresAt, session: session.info(current: session.id),
            account: user.account)
    }

    func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        let now = clock.now()
        let (tokens, access, refresh) = makeTokens(now: now)
        guard
            let session = try await store.rotateTokens(
                refreshTokenHash: SessionToken.hash(request.refreshToken), to: tokens, at: now),
            let user = try await store.user(id: session.userId)
        else {
            throw ParleyError(.invalidToken, "The refresh token is unknown, used, expired or revoked; log in again.")
        }
        return TokenResponse(
            accessToken: access, accessTokenExpiresAt: tokens.accessExpiresAt, refreshToken: refresh,
            refreshTokenExpiresAt: tokens.refreshExpiresAt, session: session.info(current: session.id),
            account: user.account)
    }

    /// The identity behind an access token; throws `invalid_token` when it is unknown,
    /// expired or revoked.
    func authenticate(accessToken: String) async throws -> Identity {
        guard let session = try await store.session(accessTokenHash: SessionToken.hash(accessToken), at: clock.now())
        else {
            throw ParleyError(.invalidToken, "The access token is unknown, expired or revoked.")
        }
        return Identity(userId: session.userId, sessionId: session.id)
    }

    func sessions(of identity: Identity) async throws -> [SessionInfo] {
        try await store.sessions(of: identity.userId).map { $0.info(current: identity.sessionId) }
    }

    /// Revokes one of the caller's sessions (their own current one for a logout).
    func revoke(_ sessionId: SessionID, by identity: Identity, ip: String) async throws {
        guard try await store.revokeSession(sessionId, of: identity.userId, at: clock.now()) else {
            throw ParleyError(.notFound, "You have no live session \(sessionId).")
        }
        if sessionId == identity.sessionId {
            audit.log("logout", ["user": "\(identity.userId)", "session": "\(sessionId)"])
        } else {
            let device = try await store.sessions(of: identity.userId).first { $0.id == sessionId }?.device
            try await audit.note(
                .sessionRevoked, of: identity.userId, device: device, ip: ip, ["session": "\(sessionId)"])
        }
    }

    func account(of identity: Identity) async throws -> Account {
        guard let user = try await store.user(id: identity.userId) else {
            throw ParleyError(.userNotFound, "Your account no longer exists.")
        }
        return user.account
    }

    func user(_ id: UserID) async throws -> User {
        guard let user = try await store.user(id: id) else {
            throw ParleyError(.userNotFound, "User \(id) does not exist.")
        }
        return user.user
    }

    /// The user called `username`, unless they hide from lookups by username.
    func user(named username: String, for identity: Identity) async throws -> User {
        try await lookup(LoginKey(username: username), for: identity, else: "No user is called '\(username)'.")
    }

    /// The user one of `username`, `email` and `phone` names (exactly one must be given), as
    /// their privacy settings allow `identity` to find them.
    func lookup(username: String?, email: String?, phone: String?, for identity: Identity) async throws -> User {
        let given = [username, email, phone].compactMap { $0 }
        guard given.count == 1 else {
            throw ParleyError(
                .invalidField, "Give exactly one of the query parameters 'username', 'email' and 'phone'.")
        }
        if let username { return try await user(named: username, for: identity) }
        if let email {
            return try await lookup(LoginKey(email: email), for: identity, else: "No user has the email '\(email)'.")
        }
        return try await lookup(LoginKey(phone: phone!), for: identity, else: "No user has the phone '\(phone!)'.")
    }

    private func lookup(_ key: LoginKey, for identity: Identity, else missing: String) async throws -> User {
        guard let user = try await store.user(key: key), user.isFound(by: key, for: identity.userId) else {
            throw ParleyError(.userNotFound, missing)
        }
        // Someone blocked either way is not found either.
        if user.id != identity.userId, !(try await store.blocked(between: identity.userId, and: [user.id])).isEmpty {
            throw ParleyError(.userNotFound, missing)
        }
        return user.user
    }

    /// Users whose nickname holds `query` and who let others find them by it; `cursor` is
    /// the previous page's `nextCursor`.
    func search(_ query: String?, cursor: String?, limit: Int64?, for identity: Identity) async throws
        -> UserSearchPage
    {
        let text = (query ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !SearchText.fold(text).isEmpty, text.count <= FindingRules.maxQueryLength,
            !TextRules.containsControlCharacter(text)
        else {
            throw ParleyError(
                .invalidField,
                "Query parameter 'q' must be 1 to \(FindingRules.maxQueryLength) characters without control characters."
            )
        }
        let limit = limit ?? Int64(FindingRules.defaultSearchLimit)
        guard (1...Int64(FindingRules.maxSearchLimit)).contains(limit) else {
            throw ParleyError(.invalidField, "Query parameter 'limit' must be 1 to \(FindingRules.maxSearchLimit).")
        }
        let depth = FindingRules.maxSearchDepth
        let offset =
            try cursor.map { cursor in
                guard let offset = Int(cursor), (0..<depth).contains(offset), String(offset) == cursor else {
                    throw ParleyError(.invalidCursor, "This cursor was not given by the server.")
                }
                return offset
            } ?? 0
        let pageSize = min(Int(limit), depth - offset)
        let found = try await store.searchUsers(
            nickname: text, for: identity.userId, offset: offset, limit: pageSize + 1)
        let next = offset + pageSize
        return UserSearchPage(
            users: found.prefix(pageSize).map(\.user),
            nextCursor: found.count > pageSize && next < depth ? String(next) : nil)
    }

    func privacy(of identity: Identity) async throws -> PrivacySettings {
        guard let user = try await store.user(id: identity.userId) else {
            throw ParleyError(.userNotFound, "Your account no longer exists.")
        }
        return user.privacy
    }

    func updatePrivacy(_ update: UpdatePrivacyRequest, of identity: Identity) async throws -> PrivacySettings {
        guard update != UpdatePrivacyRequest() else {
            throw ParleyError(
                .missingField,
                "Give at least one of 'findByUsername', 'findByEmail', 'findByPhone', 'findByNickname', 'addMe', "
                    + "'messageFrom' and 'presence'.")
        }
        for (field, value) in [
            ("findByUsername", update.findByUsername), ("findByEmail", update.findByEmail),
            ("findByPhone", update.findByPhone), ("findByNickname", update.findByNickname),
        ] {
            if let value, !Discoverability.known.contains(value) {
                throw ParleyError(.invalidField, "'\(field)' must be 'everyone' or 'nobody'.")
            }
        }
        if let addMe = update.addMe, !AddPolicy.known.contains(addMe) {
            throw ParleyError(.invalidField, "'addMe' must be 'anyone', 'approval' or 'nobody'.")
        }
        if let messageFrom = update.messageFrom, !MessagePolicy.known.contains(messageFrom) {
            throw ParleyError(.invalidField, "'messageFrom' must be 'everyone' or 'friends'.")
        }
        if let presence = update.presence, !PresenceVisibility.known.contains(presence) {
            throw ParleyError(.invalidField, "'presence' must be 'everyone', 'contacts' or 'nobody'.")
        }
        return try await store.updatePrivacy(userId: identity.userId, update, at: clock.now()).privacy
    }

    func updateProfile(_ update: ProfileUpdate, of identity: Identity) async throws -> Account {
        guard update != ProfileUpdate() else {
            throw ParleyError(
                .missingField,
                "Give at least one of 'nickname', 'signature', 'avatar', 'gender', 'birthday' and 'region'.")
        }
        let now = clock.now()
        if let nickname = update.nickname { try AccountRules.validateNickname(nickname) }
        if let signature = update.signature { try AccountRules.validateSignature(signature) }
        if let avatar = update.avatar { try ProfileRules.validateAvatar(avatar) }
        if let gender = update.gender { try ProfileRules.validateGender(gender) }
        if let birthday = update.birthday {
            try ProfileRules.validateBirthday(birthday, today: ProfileRules.today(now))
        }
        if let region = update.region { try ProfileRules.validateRegion(region) }
        if let nickname = update.nickname { try words.check(nickname, field: "nickname") }
        if let signature = update.signature { try words.check(signature, field: "signature") }
        if let avatar = update.avatar { try await store.checkAvatar(avatar, by: identity.userId, code: .avatarInvalid) }
        return try await store.updateProfile(userId: identity.userId, update, at: now).account
    }

    private func makeTokens(now: Int64) -> (SessionTokens, access: String, refresh: String) {
        let access = SessionToken.make(prefix: "pat_")
        let refresh = SessionToken.make(prefix: "prt_")
        let tokens = SessionTokens(
            accessTokenHash: SessionToken.hash(access),
            accessExpiresAt: now + configuration.accessTokenLifetime.milliseconds,
            refreshTokenHash: SessionToken.hash(refresh),
            refreshExpiresAt: now + configuration.refreshTokenLifetime.milliseconds)
        return (tokens, access, refresh)
    }

    /// bcrypt is deliberately slow, so it runs on NIO's blocking pool, not the async executors.
    private func hashPassword(_ password: String) async throws -> String {
        let cost = configuration.bcryptCost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    private func verifyPassword(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
