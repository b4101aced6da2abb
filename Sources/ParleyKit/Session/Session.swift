import Foundation
import ParleyCore

/// The signed-in account of one device (SPEC 3): registration, login, logout and the
/// tokens, kept in the ``ClientStore`` so that a new process opens signed in.
///
/// Invariant: at most one token refresh is in flight. Every caller that needs a fresh token
/// while one is being refreshed waits for that same refresh, since presenting a refresh
/// token twice revokes the session (the server takes the second use for a stolen token).
public actor Session {
    public nonisolated let api: APIClient
    private let store: ClientStore
    private let deviceName: String
    private let wallClock: @Sendable () -> Int64
    private var stored: StoredSession?
    /// The refresh in flight, shared by every caller that needs a token meanwhile.
    private var refreshing: Task<String, any Error>?

    static let storeKey = ClientStore.sessionKey

    init(api: APIClient, store: ClientStore, deviceName: String, wallClock: @escaping @Sendable () -> Int64) throws {
        self.api = api
        self.store = store
        self.deviceName = deviceName
        self.wallClock = wallClock
        stored = try store.value(Self.storeKey).map { try JSONText.decode(StoredSession.self, from: $0) }
    }

    /// The signed-in user, if any.
    public var currentUser: (id: UserID, username: String)? {
        stored.map { (UserID($0.userId), $0.username) }
    }

    /// Creates an account (it does not sign in).
    public func register(_ request: RegisterRequest) async throws -> Account {
        try await api.call(.register, body: request)
    }

    /// Signs in and keeps the session in the store. For an account with two-factor login it
    /// throws ``SecondFactorRequired``: ask for a code, then ``completeLogin(_:code:)``.
    @discardableResult
    public func login(_ login: String, password: String) async throws -> Account {
        let outcome: LoginOutcome = try await api.call(
            .login, body: LoginRequest(login: login, password: password, device: deviceName))
        switch outcome {
        case .signedIn(let tokens): return try signIn(tokens)
        case .secondFactorRequired(let challenge): throw SecondFactorRequired(challenge: challenge)
        }
    }

    /// The second step of a two-factor login: the challenge the first step threw, with a code
    /// from the authenticator app or a recovery code.
    @discardableResult
    public func completeLogin(_ challenge: SecondFactorChallenge, code: String) async throws -> Account {
        let tokens: TokenResponse = try await api.call(
            .secondFactor, body: SecondFactorRequest(challenge: challenge.challenge, code: code))
        return try signIn(tokens)
    }

    /// Sends a code for setting a new password to the email (or phone) of the account `login`
    /// names; the answer is the same whether or not it names one. Needs no session.
    @discardableResult
    public func requestPasswordReset(login: String) async throws -> PasswordResetStarted {
        try await api.call(.startPasswordReset, body: PasswordResetRequest(login: login))
    }

    /// Sets a new password with the code ``requestPasswordReset(login:)`` sent; every session
    /// of the account ends (this device's too: log in again with the new password).
    public func resetPassword(login: String, code: String, newPassword: String) async throws {
        let _: APIClient.Empty = try await api.call(
            .confirmPasswordReset, body: PasswordResetConfirmRequest(login: login, code: code, newPassword: newPassword)
        )
    }

    /// Writes this session into another store, which then opens signed in.
    public func copy(to other: ClientStore) throws {
        guard let stored else { throw ParleyError(.unauthenticated, "Not logged in.") }
        try other.setValue(try JSONText.encode(stored), for: Self.storeKey)
    }

    /// Revokes the session on the server (when reachable) and forgets it. The client's
    /// ``ParleyClient/logout()`` also stops the connection first; prefer it.
    func end() async {
        if let token = stored?.accessToken {
            let _: APIClient.Empty? = try? await api.call(.logout, token: token)
        }
        stored = nil
        try? store.setValue(nil, for: Self.storeKey)
    }

    private func signIn(_ tokens: TokenResponse) throws -> Account {
        try keep(tokens)
        try store.saveUser(tokens.account.user)
        return tokens.account
    }

    private func keep(_ tokens: TokenResponse) throws {
        let session = StoredSession(
            userId: tokens.account.user.id.rawValue, username: tokens.account.user.username,
            sessionId: tokens.session.id.rawValue, accessToken: tokens.accessToken,
            accessTokenExpiresAt: tokens.accessTokenExpiresAt, refreshToken: tokens.refreshToken)
        stored = session
        try store.setValue(try JSONText.encode(session), for: Self.storeKey)
    }

    /// A valid access token, refreshed first when it is about to expire; nil when signed out
    /// or when the refresh failed.
    func accessToken() async -> String? {
        guard let stored else { return nil }
        if stored.accessTokenExpiresAt - wallClock() > 60_000 { return stored.accessToken }
        return try? await refresh()
    }

    /// Refreshes the tokens, or joins the refresh already in flight.
    private func refresh() async throws -> String {
        if let refreshing { return try await refreshing.value }
        guard let stored else { throw ParleyError(.unauthenticated, "Not logged in.") }
        let task = Task {
            let tokens: TokenResponse = try await api.call(
                .refresh, body: RefreshRequest(refreshToken: stored.refreshToken))
            try keep(tokens)
            return tokens.accessToken
        }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    /// Sends or fetches raw bytes with the session's token, refreshing it once if it was
    /// rejected.
    public func transfer(
        _ endpoint: Endpoint, _ parameters: any CustomStringConvertible & Sendable..., headers: [String: String] = [:],
        body: Data? = nil
    ) async throws -> Data {
        try await withToken { token in
            try await api.transfer(endpoint, parameters, headers: headers, body: body, token: token)
        }
    }

    /// Calls the HTTP API with the session's token, refreshing it once if it was rejected.
    public func http<Response: Decodable>(
        _ endpoint: Endpoint, _ parameters: any CustomStringConvertible & Sendable..., query: [String: String] = [:],
        body: (some Encodable & Sendable)? = Optional<APIClient.Empty>.none, as type: Response.Type = Response.self
    ) async throws -> Response {
        try await withToken { token in
            try await api.call(endpoint, parameters, query: query, body: body, token: token)
        }
    }

    /// Runs `call` with the access token; when the server rejects the token, once more with
    /// a refreshed one.
    private func withToken<Result>(_ call: (String) async throws -> Result) async throws -> Result {
        guard let token = await accessToken() else { throw ParleyError(.unauthenticated, "Not logged in.") }
        do {
            return try await call(token)
        } catch let error as ParleyError where error.code == .invalidToken {
            return try await call(try await refresh())
        }
    }
}
