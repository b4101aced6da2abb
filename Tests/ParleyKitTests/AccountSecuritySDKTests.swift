import Foundation
import ParleyCore
import ParleyKit
import ParleyServer
import ParleyTesting
import Testing

extension LiveServerSuites.ProfileSDKTests {
    /// `client.profile` verifies and replaces an email by code, `client.session` resets a
    /// forgotten password by code, and `client.deleteAccount` ends it all, against a real
    /// server whose codes a test inbox receives.
    @Test func anEmailIsVerifiedReplacedAPasswordResetByCodeAndTheAccountDeleted() async throws {
        let inbox = CodeInbox()
        let server = try await InProcessServer.start(codes: inbox)
        let phone = try makeClient(server.url, device: "phone")
        _ = try await phone.session.register(
            RegisterRequest(username: "alice", password: "Passw0rd!", email: "alice@example.com"))
        try await phone.session.login("alice", password: "Passw0rd!")
        #expect(try await phone.profile.me().emailVerified == false)

        let sent = try await phone.profile.requestCode(.verifyEmail)
        #expect(sent.destination == "a•••@example.com" && sent.channel == .email)
        let again = await #expect(throws: ParleyError.self) { try await phone.profile.requestCode(.verifyEmail) }
        #expect(again?.code == .rateLimited && again?.until == sent.resendAt)
        let wrong = await #expect(throws: ParleyError.self) {
            try await phone.profile.confirmCode(
                "000000" == inbox.code(to: "alice@example.com") ? "111111" : "000000", for: .verifyEmail)
        }
        #expect(wrong?.code == .codeInvalid)
        let verified = try await phone.profile.confirmCode(
            try #require(inbox.code(to: "alice@example.com")), for: .verifyEmail)
        #expect(verified.emailVerified == true)

        try await phone.profile.requestCode(.changeEmail, to: "alice@new.example")
        let changed = try await phone.profile.confirmCode(
            try #require(inbox.code(to: "alice@new.example")), for: .changeEmail)
        #expect(changed.email == "alice@new.example" && changed.emailVerified == true)

        // Forgotten: a new device asks for a code by email and sets a new password; the phone is signed out.
        let laptop = try makeClient(server.url, device: "laptop")
        let started = try await laptop.session.requestPasswordReset(login: "alice@new.example")
        #expect(started.expiresAt > 0)
        let code = try #require(inbox.messages.last { $0.purpose == .resetPassword }?.code)
        try await laptop.session.resetPassword(login: "alice", code: code, newPassword: "N3w-Secret!")
        let signedOut = await #expect(throws: ParleyError.self) { try await phone.profile.me() }
        #expect(signedOut?.code == .invalidToken || signedOut?.code == .unauthenticated)
        try await laptop.session.login("alice", password: "N3w-Secret!")
        #expect(try await laptop.profile.me().email == "alice@new.example")

        // Deleting the account signs this device out and frees nothing of what others hold.
        let refused = await #expect(throws: ParleyError.self) {
            try await laptop.deleteAccount(password: "Passw0rd!")
        }
        #expect(refused?.code == .currentPasswordWrong)
        try await laptop.deleteAccount(password: "N3w-Secret!")
        #expect(await laptop.session.currentUser == nil)
        let gone = await #expect(throws: ParleyError.self) {
            try await laptop.session.login("alice", password: "N3w-Secret!")
        }
        #expect(gone?.code == .invalidCredentials)
        await server.stop()
    }

    /// A send refused for going too fast waits in the queue and goes out once the limit allows:
    /// every message arrives once, in order, none failed.
    @Test func aSendRefusedForGoingTooFastWaitsInTheQueue() async throws {
        let server = try await InProcessServer.start { $0.rateLimits[.send] = RateLimit(burst: 2, 2, per: 1) }
        let alice = try makeClient(server.url)
        let bob = try makeClient(server.url)
        try await signUp(alice, "alice")
        try await signUp(bob, "bob")
        let conversation = try await alice.conversations.openDirect(withUsername: "bob").id
        await alice.connect()
        var handles: [SendHandle] = []
        for index in 1...6 {
            handles.append(try await alice.sendQueue.send(.text, ["text": .string("m\(index)")], to: conversation))
        }
        for handle in handles {
            try await eventually("m sent") {
                if case .sent = await handle.state { return true }
                return false
            }
        }
        let history = try await serverHistory(conversation, via: bob)
        #expect(history.map { text($0.content) } == (1...6).map { "m\($0)" })
        #expect(history.map(\.seq) == Array(1...6))
        await alice.disconnect()
        await server.stop()
    }
}
