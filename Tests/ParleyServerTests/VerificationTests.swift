import Foundation
import HTTPTypes
import ParleyCore
import ParleyServer
import ParleyTesting
import Testing

/// Verification codes over HTTP: verifying and replacing an email and a phone, resetting a
/// password, each code bound to its purpose, address and user, working once, for a limited
/// time and a limited number of tries; codes are never stored in clear.
@Suite struct VerificationTests {
    static let start: Int64 = 1_800_000_000_000

    static func post(_ api: TestAPI, _ path: String, _ body: some Encodable, token: String? = nil) async throws
        -> TwoFactorTests.Answer
    {
        try await TwoFactorTests.post(api, path, body, token: token)
    }

    static func register(_ api: TestAPI, _ name: String, email: String? = nil, phone: String? = nil) async throws
        -> TestUser
    {
        let _: Account = try await api.call(
            .post, "/v1/accounts", RegisterRequest(username: name, password: "Passw0rd!", email: email, phone: phone))
        return try await api.logIn(name)
    }

    static func me(_ api: TestAPI, _ user: TestUser) async throws -> Account {
        try await api.call(.get, "/v1/me", token: user.token)
    }

    @Test func verifyingAndChangingAnEmailAndAPhone() async throws {
        let clock = TestClock(Self.start)
        let inbox = CodeInbox()
        try await withServer(clock: clock.wallClock, codes: inbox) { api in
            let alice = try await Self.register(api, "alice", email: "Alice@Example.com")
            let bob = try await Self.register(api, "bob", email: "bob@example.com", phone: "+8613800000001")
            #expect(try await Self.me(api, alice).emailVerified == false)
            #expect(try await Self.me(api, alice).phoneVerified == nil, "no phone, so nothing to say of it")

            // Verify the email: the code goes to the account's own address.
            let sent = try await Self.post(
                api, "/v1/me/verification", VerificationCodeRequest(purpose: .verifyEmail), token: alice.token)
            #expect(sent.status == 202)
            let answer = try sent.decode(VerificationCodeSent.self)
            #expect(answer.channel == .email && answer.destination == "a•••@example.com")
            #expect(answer.expiresAt == Self.start + VerificationRules.codeLifetimeMs)
            #expect(answer.resendAt == Self.start + VerificationRules.resendIntervalMs)
            let code = try #require(inbox.code(to: "alice@example.com"))
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            #expect(inbox.messages.last?.text.contains(code) == true)

            // Asked again at once: refused until the resend time, with Retry-After.
            let again = try await Self.post(
                api, "/v1/me/verification", VerificationCodeRequest(purpose: .verifyEmail), token: alice.token)
            #expect(again.status == 429 && again.error?.code == .rateLimited)
            #expect(again.headers[.retryAfter] == "60")
            #expect(inbox.messages.count == 1)

            // Bob cannot use Alice's code, nor can it verify another purpose.
            let bobs = try await Self.post(
                api, "/v1/me/verification/confirm", VerificationConfirmRequest(purpose: .verifyEmail, code: code),
                token: bob.token)
            #expect(bobs.status == 400 && bobs.error?.code == .codeInvalid)
            let otherPurpose = try await Self.post(
                api, "/v1/me/verification/confirm", VerificationConfirmRequest(purpose: .changeEmail, code: code),
                token: alice.token)
            #expect(otherPurpose.status == 400 && otherPurpose.error?.code == .codeInvalid)

            let verified = try await Self.post(
                api, "/v1/me/verification/confirm",
                VerificationConfirmRequest(
                    purpose: .verifyEmail, code: String(code.prefix(3)) + " " + code.dropFirst(3)),
                token: alice.token)
            #expect(verified.status == 200)
            #expect(try verified.decode(Account.self).emailVerified == true)
            let reused = try await Self.post(
                api, "/v1/me/verification/confirm", VerificationConfirmRequest(purpose: .verifyEmail, code: code),
                token: alice.token)
            #expect(reused.status == 400 && reused.error?.code == .codeInvalid, "a code works once")
            let twice = try await Self.post(
                api, "/v1/me/verification", VerificationCodeRequest(purpose: .verifyEmail), token: alice.token)
            #expect(twice.status == 409 && twice.error?.code == .nothingToVerify)

            // Change the email: the code goes to the new address, which must be free and valid.
            for (destination, status, code) in [
                ("bob@example.com", 409, ErrorCode.emailTaken), ("not-an-email", 400, .emailInvalid),
                ("alice@example.com", 409, .nothingToVerify),
            ] {
                let refused = try await Self.post(
                    api, "/v1/me/verification",
                    VerificationCodeRequest(purpose: .changeEmail, destination: destination),
                    token: alice.token)
                #expect(refused.status == status && refused.error?.code == code, "\(destination)")
            }
            let missing = try await Self.post(
                api, "/v1/me/verification", VerificationCodeRequest(purpose: .changeEmail), token: alice.token)
            #expect(missing.status == 400 && missing.error?.code == .missingField)
            #expect(
                try await Self.post(
                    api, "/v1/me/verification",
                    VerificationCodeRequest(purpose: .changeEmail, destination: "A2@example.com"),
                    token: alice.token
                ).status == 202)
            let changeCode = try #require(inbox.code(to: "a2@example.com"))
            let changed = try await Self.post(
                api, "/v1/me/verification/confirm", VerificationConfirmRequest(purpose: .changeEmail, code: changeCode),
                token: alice.token)
            #expect(changed.status == 200)
            let account = try changed.decode(Account.self)
            #expect(account.email == "a2@example.com" && account.emailVerified == true)
            #expect(try await api.logIn("a2@example.com").id == alice.id, "the new email logs in")

            // A phone: Alice has none to verify; she adds one by code.
            let none = try await Self.post(
                api, "/v1/me/verification", VerificationCodeRequest(purpose: .verifyPhone), token: alice.token)
            #expect(none.status == 409 && none.error?.code == .nothingToVerify)
            let taken = try await Self.post(
                api, "/v1/me/verification",
                VerificationCodeRequest(purpose: .changePhone, destination: "+8613800000001"), token: alice.token)
            #expect(taken.status == 409 && taken.error?.code == .phoneTaken)
            let phone = try await Self.post(
                api, "/v1/me/verification",
                VerificationCodeRequest(purpose: .changePhone, destination: "+8613800000002"), token: alice.token)
            #expect(try phone.decode(VerificationCodeSent.self).destination == "+86•••••••0002")
            #expect(inbox.messages.last?.channel == .phone)
            let phoneCode = try #require(inbox.code(to: "+8613800000002"))
            let added = try await Self.post(
                api, "/v1/me/verification/confirm", VerificationConfirmRequest(purpose: .changePhone, code: phoneCode),
                token: alice.token)
            #expect(try added.decode(Account.self).phone == "+8613800000002")

            let events: SecurityEventList = try await api.call(.get, "/v1/me/security-events", token: alice.token)
            #expect(
                events.events.map(\.kind).filter { $0 != .login } == [.phoneChanged, .emailChanged, .emailVerified])
        }
    }

    @Test func aCodeExpiresEndsAfterFiveWrongTriesAndFollowsItsAddress() async throws {
        let clock = TestClock(Self.start)
        let inbox = CodeInbox()
        try await withServer(clock: clock.wallClock, codes: inbox) { api in
            let carol = try await Self.register(api, "carol", email: "carol@example.com")
            func ask(_ purpose: VerificationPurpose, _ destination: String? = nil) async throws -> Int {
                try await Self.post(
                    api, "/v1/me/verification", VerificationCodeRequest(purpose: purpose, destination: destination),
                    token: carol.token
                ).status
            }
            func confirm(_ purpose: VerificationPurpose, _ code: String) async throws -> TwoFactorTests.Answer {
                try await Self.post(
                    api, "/v1/me/verification/confirm", VerificationConfirmRequest(purpose: purpose, code: code),
                    token: carol.token)
            }
            #expect(try await ask(.verifyEmail) == 202)
            let expired = try #require(inbox.code(to: "carol@example.com"))
            clock.advance(VerificationRules.codeLifetimeMs)
            #expect(
                try await confirm(.verifyEmail, expired).error?.message == "This code has expired; ask for a new one.")

            #expect(try await ask(.verifyEmail) == 202, "the resend interval passed long ago")
            let code = try #require(inbox.code(to: "carol@example.com"))
            #expect(code != expired || inbox.messages.count == 2)
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 1..<VerificationRules.maxAttempts {
                #expect(try await confirm(.verifyEmail, wrong).error?.message == "The code is wrong.")
            }
            #expect(try await confirm(.verifyEmail, wrong).error?.message.contains("last try") == true)
            #expect(
                try await confirm(.verifyEmail, code).error?.message
                    == "No code is waiting for this; ask for a new one.",
                "the right code no longer works after the last wrong try")
            #expect(try await confirm(.verifyEmail, "12345").error?.message == "A code is 6 digits.")

            // A code to verify the old address stops working once the address changed.
            clock.advance(VerificationRules.resendIntervalMs)
            #expect(try await ask(.verifyEmail) == 202)
            let forOld = try #require(inbox.code(to: "carol@example.com"))
            #expect(try await ask(.changeEmail, "carol2@example.com") == 202)
            #expect(try await confirm(.changeEmail, try #require(inbox.code(to: "carol2@example.com"))).status == 200)
            #expect(try await confirm(.verifyEmail, forOld).error?.code == .codeInvalid)
            #expect(try await Self.me(api, carol).email == "carol2@example.com")

            // A sender that fails: 503, and the code is not kept, so another may be asked at once.
            inbox.setFailing(true)
            let down = try await Self.post(
                api, "/v1/me/verification",
                VerificationCodeRequest(purpose: .changeEmail, destination: "c3@example.com"),
                token: carol.token)
            #expect(down.status == 503 && down.error?.code == .unavailable)
            inbox.setFailing(false)
            #expect(try await ask(.changeEmail, "c3@example.com") == 202)

            // Bad purposes and bodies change nothing.
            let badPurpose = try await Self.post(
                api, "/v1/me/verification", ["purpose": "reset_password"], token: carol.token)
            #expect(badPurpose.status == 400 && badPurpose.error?.code == .invalidField)
            let extra = try await Self.post(
                api, "/v1/me/verification", ["purpose": "verify_email", "to": "x"], token: carol.token)
            #expect(extra.status == 400 && extra.error?.code == .unknownField)
            let anonymous = try await Self.post(api, "/v1/me/verification", ["purpose": "verify_email"])
            #expect(anonymous.status == 401)
        }
    }

    @Test func aPasswordResetByCodeEndsEverySessionAndTellsNothingOfWhoExists() async throws {
        let clock = TestClock(Self.start)
        let inbox = CodeInbox()
        try await withServer(clock: clock.wallClock, codes: inbox) { api in
            let dave = try await Self.register(api, "dave", email: "dave@example.com")
            _ = try await Self.register(api, "erin", phone: "+8613800000009")
            _ = try await Self.register(api, "frank")

            for login in ["dave", "nobody", "frank", "erin"] {
                let started = try await Self.post(api, "/v1/password-reset", PasswordResetRequest(login: login))
                #expect(started.status == 202, "\(login)")
                #expect(
                    try started.decode(PasswordResetStarted.self).expiresAt == Self.start
                        + VerificationRules.codeLifetimeMs)
            }
            #expect(inbox.messages.map(\.to) == ["dave@example.com", "+8613800000009"])
            #expect(inbox.messages.allSatisfy { $0.purpose == .resetPassword })
            #expect(inbox.messages.map(\.channel) == [.email, .phone], "a phone-only account gets a text message")
            let code = try #require(inbox.code(to: "dave@example.com"))
            // Asked again at once: the same answer, and no second code.
            #expect(try await Self.post(api, "/v1/password-reset", PasswordResetRequest(login: "dave")).status == 202)
            #expect(inbox.messages.count == 2)

            let weak = try await Self.post(
                api, "/v1/password-reset/confirm",
                PasswordResetConfirmRequest(login: "dave", code: code, newPassword: "short"))
            #expect(weak.status == 400 && weak.error?.code == .passwordTooShort)
            let nobody = try await Self.post(
                api, "/v1/password-reset/confirm",
                PasswordResetConfirmRequest(login: "nobody", code: code, newPassword: "N3w-Secret!"))
            #expect(nobody.status == 400 && nobody.error?.code == .codeInvalid)
            let erins = try await Self.post(
                api, "/v1/password-reset/confirm",
                PasswordResetConfirmRequest(login: "erin", code: code, newPassword: "N3w-Secret!"))
            #expect(erins.status == 400 && erins.error?.code == .codeInvalid, "Dave's code is not Erin's")

            let reset = try await Self.post(
                api, "/v1/password-reset/confirm",
                PasswordResetConfirmRequest(login: "dave@example.com", code: code, newPassword: "N3w-Secret!"))
            #expect(reset.status == 204)
            let (old, _, _) = try await api.raw(.get, "/v1/me", token: dave.token)
            #expect(old == 401, "every session ended")
            #expect(try await api.logIn("dave", password: "N3w-Secret!").id == dave.id)
            let stale = try await Self.post(
                api, "/v1/sessions", LoginRequest(login: "dave", password: "Passw0rd!"))
            #expect(stale.status == 401)
            let reused = try await Self.post(
                api, "/v1/password-reset/confirm",
                PasswordResetConfirmRequest(login: "dave", code: code, newPassword: "An0ther-One!"))
            #expect(reused.status == 400 && reused.error?.code == .codeInvalid)
            let fresh = try await api.logIn("dave", password: "N3w-Secret!")
            let events: SecurityEventList = try await api.call(.get, "/v1/me/security-events", token: fresh.token)
            #expect(events.events.map(\.kind).contains(.passwordReset))
        }
    }
}
