import Foundation
import HTTPTypes
import ParleyCore
import ParleyServer
import Testing

/// Two-factor login over HTTP: enrolment confirmed by a first code, the login's second step
/// with a code or a recovery code, each working once, wrong codes locking, forged and
/// expired challenges refused, and turning it off.
@Suite struct TwoFactorTests {
    static let start: Int64 = 1_800_000_000_000

    /// A POST with a JSON body (and token): the status and the decoded answer or error.
    struct Answer {
        let status: Int
        let body: String
        let headers: HTTPFields
        var error: ParleyError? { try? decodeJSON(ErrorBody.self, body).error }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeJSON(type, body) }
    }

    static func post(_ api: TestAPI, _ path: String, _ body: some Encodable, token: String? = nil) async throws
        -> Answer
    {
        let text = String(decoding: try JSONEncoder().encode(body), as: UTF8.self)
        let (status, answer, headers) = try await api.raw(.post, path, body: text, token: token)
        return Answer(status: status, body: answer, headers: headers)
    }

    static func login(_ api: TestAPI, device: String = "phone") async throws -> Answer {
        try await post(api, "/v1/sessions", LoginRequest(login: "alice", password: "Passw0rd!", device: device))
    }

    static func second(_ api: TestAPI, _ challenge: String, _ code: String) async throws -> Answer {
        try await post(api, "/v1/sessions/second-factor", SecondFactorRequest(challenge: challenge, code: code))
    }

    @Test func enrolmentLoginRecoveryLockAndDisable() async throws {
        let clock = TestClock(Self.start)
        try await withServer(clock: clock.wallClock) { api in
            let alice = try await api.signUp("alice")
            let off: TwoFactorStatus = try await api.call(.get, "/v1/me/two-factor", token: alice.token)
            #expect(off == TwoFactorStatus(enabled: false, recoveryCodesLeft: 0))
            let early = try await Self.post(api, "/v1/me/two-factor/confirm", ["code": "123456"], token: alice.token)
            #expect(early.status == 409 && early.error?.code == .twoFactorNotPending)

            let setup: TwoFactorSetup = try await api.call(.post, "/v1/me/two-factor", token: alice.token)
            #expect(setup.uri.hasPrefix("otpauth://totp/Parley:alice?secret=\(setup.secret)&issuer=Parley"))
            let totp = TOTP(secret: try #require(Base32.decode(setup.secret)))
            #expect(totp.secret.count == 20)
            let wrong = try await Self.post(
                api, "/v1/me/two-factor/confirm", ["code": Self.other(than: totp.code(at: clock.now))],
                token: alice.token)
            #expect(wrong.status == 400 && wrong.error?.code == .codeInvalid)
            #expect(try await Self.login(api).status == 201, "not on before a code confirms it")

            let confirmed = try await Self.post(
                api, "/v1/me/two-factor/confirm", ["code": totp.code(at: clock.now)], token: alice.token)
            #expect(confirmed.status == 200)
            let recovery = try confirmed.decode(RecoveryCodes.self).recoveryCodes
            #expect(recovery.count == 10 && Set(recovery).count == 10)
            #expect(recovery.allSatisfy { $0.count == 11 && $0.dropFirst(5).first == "-" })
            let again = try await Self.post(api, "/v1/me/two-factor", [String: String](), token: alice.token)
            #expect(again.status == 409 && again.error?.code == .twoFactorEnabled)

            // The password step answers a challenge, not a session.
            let first = try await Self.login(api)
            #expect(first.status == 202)
            let challenge = try first.decode(SecondFactorChallenge.self)
            #expect(challenge.expiresAt == clock.now + 5 * 60_000)
            let reused = try await Self.second(api, challenge.challenge, totp.code(at: clock.now))
            #expect(reused.status == 400 && reused.error?.message.contains("used already") == true, "\(reused.body)")
            clock.advance(30_000)
            let signedIn = try await Self.second(api, challenge.challenge, totp.code(at: clock.now))
            #expect(signedIn.status == 201, "\(signedIn.body)")
            let tokens = try signedIn.decode(TokenResponse.self)
            #expect(tokens.session.device == "phone" && tokens.account.user.username == "alice")
            let me: Account = try await api.call(.get, "/v1/me", token: tokens.accessToken)
            #expect(me.user.id == alice.id)

            // A recovery code, typed any way, works once.
            let withRecovery = try await Self.second(
                api, try await Self.login(api).decode(SecondFactorChallenge.self).challenge,
                recovery[0].uppercased().replacingOccurrences(of: "-", with: " "))
            #expect(withRecovery.status == 201, "\(withRecovery.body)")
            let recoveryAgain = try await Self.second(
                api, try await Self.login(api).decode(SecondFactorChallenge.self).challenge, recovery[0])
            #expect(recoveryAgain.status == 400 && recoveryAgain.error?.code == .codeInvalid)
            let left: TwoFactorStatus = try await api.call(.get, "/v1/me/two-factor", token: alice.token)
            #expect(left == TwoFactorStatus(enabled: true, recoveryCodesLeft: 9))

            // Forged, malformed and expired challenges.
            let parts = challenge.challenge.split(separator: ".").map(String.init)
            let forged = (["999"] + parts.dropFirst()).joined(separator: ".")
            for bad in [forged, "nonsense", parts.dropLast().joined(separator: ".") + ".AAAA"] {
                let answer = try await Self.second(api, bad, totp.code(at: clock.now))
                #expect(answer.status == 401 && answer.error?.code == .challengeInvalid, "\(bad)")
            }
            clock.advance(5 * 60_000)
            let expired = try await Self.second(api, challenge.challenge, totp.code(at: clock.now))
            #expect(expired.status == 401 && expired.error?.code == .challengeInvalid)

            // Five wrong codes in a row (the used recovery code above, four more) lock codes
            // out, even a right one, for the lockout.
            let fresh = try await Self.login(api).decode(SecondFactorChallenge.self).challenge
            for attempt in 1...4 {
                let answer = try await Self.second(api, fresh, Self.other(than: totp.code(at: clock.now)))
                #expect(answer.error?.code == (attempt < 4 ? .codeInvalid : .tooManyAttempts), "attempt \(attempt)")
            }
            let locked = try await Self.second(api, fresh, totp.code(at: clock.now))
            #expect(locked.status == 429 && locked.error?.code == .tooManyAttempts)
            #expect(locked.headers[.retryAfter] == "900")
            clock.advance(15 * 60_000)
            let later = try await Self.login(api).decode(SecondFactorChallenge.self).challenge
            #expect(try await Self.second(api, later, totp.code(at: clock.now)).status == 201)

            // Off with a code; then a login is one step again.
            let notCode = try await Self.post(api, "/v1/me/two-factor/disable", ["code": "nope"], token: alice.token)
            #expect(notCode.status == 400 && notCode.error?.code == .codeInvalid)
            let disabled = try await Self.post(
                api, "/v1/me/two-factor/disable", ["code": recovery[1]], token: alice.token)
            #expect(disabled.status == 204, "\(disabled.body)")
            #expect(try await Self.login(api).status == 201)
            let twice = try await Self.post(api, "/v1/me/two-factor/disable", ["code": recovery[2]], token: alice.token)
            #expect(twice.status == 409 && twice.error?.code == .twoFactorNotEnabled)
        }
    }

    /// Every two-factor operation needs a signed-in user (the second step, a challenge), and
    /// malformed bodies are refused by name with nothing changed.
    @Test func anonymousCallsAndBadBodiesAreRefused() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            for (method, path) in [
                (HTTPRequest.Method.get, "/v1/me/two-factor"), (.post, "/v1/me/two-factor"),
                (.post, "/v1/me/two-factor/confirm"), (.post, "/v1/me/two-factor/disable"),
            ] {
                let answer = try await api.raw(method, path, body: method == .get ? nil : #"{"code":"1"}"#)
                #expect(answer.status == 401, "\(method) \(path)")
            }
            let missing = try await api.raw(.post, "/v1/me/two-factor/confirm", body: "{}", token: alice.token)
            #expect(missing.status == 400 && missing.body.contains("missing_field"))
            let unknown = try await api.raw(
                .post, "/v1/sessions/second-factor", body: #"{"challenge":"a","code":"1","extra":1}"#)
            #expect(unknown.status == 400 && unknown.body.contains("unknown_field"))
            let off: TwoFactorStatus = try await api.call(.get, "/v1/me/two-factor", token: alice.token)
            #expect(!off.enabled)
        }
    }

    /// A six-digit code that is not `code`.
    static func other(than code: String) -> String {
        String(format: "%06d", ((Int(code) ?? 0) + 1) % 1_000_000)
    }
}

extension TestClock {
    var now: Int64 { time.withLock { $0 } }
}
