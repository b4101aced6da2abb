import Foundation
import HTTPTypes
import Logging
import ParleyCore
import ParleyServer
import ParleyTesting
import Synchronization
import Testing

/// The user's security log, and the operator's log holding no secret.
@Suite struct SecurityLogTests {
    @Test func theLogShowsLoginsPasswordAndTwoFactorChangesAndSignedOutDevicesNewestFirst() async throws {
        let clock = TestClock(1_800_000_000_000)
        try await withServer(clock: clock.wallClock) { api in
            let laptop = try await api.signUp("alice", device: "laptop")
            let phone = try await api.logIn("alice", device: "phone")
            #expect(try await api.raw(.delete, "/v1/sessions/\(phone.sessionId)", token: laptop.token).status == 204)
            let setup: TwoFactorSetup = try await api.call(.post, "/v1/me/two-factor", token: laptop.token)
            let totp = TOTP(secret: try #require(Base32.decode(setup.secret)))
            let codes: RecoveryCodes = try await api.call(
                .post, "/v1/me/two-factor/confirm", TwoFactorCodeRequest(code: totp.code(at: clock.now)),
                token: laptop.token)
            let _: EmptyBody = try await api.call(
                .post, "/v1/me/two-factor/disable", TwoFactorCodeRequest(code: codes.recoveryCodes[0]),
                token: laptop.token)
            let _: EmptyBody = try await api.call(
                .post, "/v1/me/password",
                ChangePasswordRequest(currentPassword: "Passw0rd!", newPassword: "N3w-Secret!"), token: laptop.token)

            let log: SecurityEventList = try await api.call(.get, "/v1/me/security-events", token: laptop.token)
            #expect(
                log.events.map(\.kind) == [
                    .passwordChanged, .twoFactorDisabled, .recoveryCodeUsed, .twoFactorEnabled, .sessionRevoked,
                    .login, .login,
                ])
            #expect(log.events.map(\.device).suffix(3) == ["phone", "phone", "laptop"])
            #expect(log.events.allSatisfy { $0.ip == "127.0.0.1" && $0.at == clock.now })
            let two: SecurityEventList = try await api.call(
                .get, "/v1/me/security-events?limit=2", token: laptop.token)
            #expect(two.events == Array(log.events.prefix(2)))
            for bad in ["0", "101", "x"] {
                let refused = try await api.raw(.get, "/v1/me/security-events?limit=\(bad)", token: laptop.token)
                #expect(refused.status == 400 && refused.body.contains("invalid_field"), "\(bad)")
            }
            #expect(try await api.raw(.get, "/v1/me/security-events").status == 401)
            let bob = try await api.signUp("bob")
            let bobs: SecurityEventList = try await api.call(.get, "/v1/me/security-events", token: bob.token)
            #expect(bobs.events.map(\.kind) == [.login], "each user sees their own")
        }
    }

    /// A whole account's life at the most verbose log level, then a search of everything the
    /// server logged for every secret that went over the wire: none is there, and the audit
    /// lines are.
    @Test func noPasswordTokenCodeOrSecretReachesTheServersLog() async throws {
        let lines = LogCapture()
        var logger = Logger(label: "parley-audit-test") { _ in lines.handler }
        logger.logLevel = .trace
        let clock = TestClock(1_800_000_000_000)
        let inbox = CodeInbox()
        let secrets = try await withServer(clock: clock.wallClock, logger: logger, codes: inbox) { api -> [String] in
            var secrets = ["Passw0rd!", "N3w-Secret!", "Wr0ng-Guess!", "R3set-Secret!"]
            let _: Account = try await api.call(
                .post, "/v1/accounts", RegisterRequest(username: "alice", password: "Passw0rd!", email: "a@example.com")
            )
            let alice = try await api.logIn("alice")
            secrets += [alice.token]
            let wrong = try await api.raw(.post, "/v1/sessions", body: #"{"login":"alice","password":"Wr0ng-Guess!"}"#)
            #expect(wrong.status == 401)
            let tokens: TokenResponse = try await api.call(
                .post, "/v1/sessions", LoginRequest(login: "alice", password: "Passw0rd!", device: "phone"))
            secrets += [tokens.accessToken, tokens.refreshToken]
            let refreshed: TokenResponse = try await api.call(
                .post, "/v1/sessions/refresh", RefreshRequest(refreshToken: tokens.refreshToken))
            secrets += [refreshed.accessToken, refreshed.refreshToken]
            let setup: TwoFactorSetup = try await api.call(.post, "/v1/me/two-factor", token: alice.token)
            let totp = TOTP(secret: try #require(Base32.decode(setup.secret)))
            let code = totp.code(at: clock.now)
            let codes: RecoveryCodes = try await api.call(
                .post, "/v1/me/two-factor/confirm", TwoFactorCodeRequest(code: code), token: alice.token)
            secrets += [setup.secret, code] + codes.recoveryCodes
            let challenge = try decodeJSON(
                SecondFactorChallenge.self,
                try await api.raw(.post, "/v1/sessions", body: #"{"login":"alice","password":"Passw0rd!"}"#).body)
            secrets += [challenge.challenge]
            let second: TokenResponse = try await api.call(
                .post, "/v1/sessions/second-factor",
                SecondFactorRequest(challenge: challenge.challenge, code: codes.recoveryCodes[3]))
            secrets += [second.accessToken, second.refreshToken]
            let _: EmptyBody = try await api.call(
                .post, "/v1/me/password",
                ChangePasswordRequest(currentPassword: "Passw0rd!", newPassword: "N3w-Secret!"), token: alice.token)
            let file = try await api.upload(testPNG(2000), as: alice)
            let link: FileLink = try await api.call(.post, "/v1/files/\(file.fileId)/links", token: alice.token)
            secrets += [String(link.url.split(separator: "signature=").last ?? "")]
            // Codes by email: verifying the address, then a reset; then the account is deleted.
            let _: VerificationCodeSent = try await api.call(
                .post, "/v1/me/verification", VerificationCodeRequest(purpose: .verifyEmail), token: alice.token)
            let verifyCode = try #require(inbox.code(to: "a@example.com"))
            let _: Account = try await api.call(
                .post, "/v1/me/verification/confirm",
                VerificationConfirmRequest(purpose: .verifyEmail, code: verifyCode),
                token: alice.token)
            let _: PasswordResetStarted = try await api.call(
                .post, "/v1/password-reset", PasswordResetRequest(login: "alice"))
            let resetCode = try #require(inbox.messages.last?.code)
            let _: EmptyBody = try await api.call(
                .post, "/v1/password-reset/confirm",
                PasswordResetConfirmRequest(login: "alice", code: resetCode, newPassword: "R3set-Secret!"))
            secrets += [verifyCode, resetCode]
            let last: TokenResponse = try await api.call(
                .post, "/v1/sessions/second-factor",
                SecondFactorRequest(
                    challenge: try decodeJSON(
                        SecondFactorChallenge.self,
                        try await api.raw(.post, "/v1/sessions", body: #"{"login":"alice","password":"R3set-Secret!"}"#)
                            .body
                    ).challenge, code: codes.recoveryCodes[4]))
            secrets += [last.accessToken, last.refreshToken]
            let (deleted, _, _) = try await api.raw(
                .post, "/v1/me/delete", body: #"{"password":"R3set-Secret!","code":"\#(codes.recoveryCodes[5])"}"#,
                token: last.accessToken)
            #expect(deleted == 204)
            return secrets
        }
        let logged = lines.text
        #expect(logged.contains("audit=account"), "the audit lines are there")
        #expect(logged.contains("login failed") && logged.contains("password_changed"))
        #expect(logged.contains("verification code sent") && logged.contains("password_reset"))
        #expect(logged.contains("account deleted"))
        for secret in secrets where secret.count >= 6 {
            #expect(!logged.contains(secret), "a secret in the log: \(secret.prefix(4))…")
        }
        // Recovery codes are also looked for without their dash, as typed.
        for secret in secrets where secret.count == 11 && secret.contains("-") {
            #expect(!logged.contains(secret.replacingOccurrences(of: "-", with: "")))
        }
    }
}

/// Every log line, formatted with its metadata, from any task. The lines are shared by every
/// handler made from it; each handler is a value with its own metadata, as `LogHandler`
/// requires, because libraries (PostgresNIO among them) set metadata on their own copies of a
/// logger from their own threads.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    /// A handler that writes here.
    var handler: Handler { Handler(capture: self) }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.append("\(event.level) \(event.message) \(fields) \(event.source)")
        }
    }
}
