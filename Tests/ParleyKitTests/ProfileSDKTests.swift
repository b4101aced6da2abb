import Foundation
import ParleyCore
import ParleyKit
import ParleyServer
import ParleyTesting
import Testing

extension LiveServerSuites {
    /// `client.profile` against a real server: a change is saved at once on the device that
    /// made it and reaches the user's other device through sync; a refusal names its field.
    @Suite(.serialized) struct ProfileSDKTests {
        @Test func aProfileChangeReachesTheUsersOtherDeviceAndARefusalNamesItsField() async throws {
            let (server, alice, _, _) = try await aliceAndBob()
            let laptop = try makeClient(server.url, device: "laptop")
            try await laptop.session.login("alice", password: "Passw0rd!")
            await laptop.catchUp()

            let account = try await alice.profile.update(
                ProfileUpdate(nickname: "Alice", gender: "female", birthday: "1990-05-17", region: "FR-75"))
            #expect(account.user.region == "FR-75")
            #expect(try alice.store.user(account.user.id) == account.user, "saved on this device at once")
            await laptop.catchUp()
            #expect(try laptop.store.user(account.user.id) == account.user, "her laptop, through sync")
            #expect(try await laptop.profile.me() == account)

            let refused = await #expect(throws: ParleyError.self) {
                try await alice.profile.update(ProfileUpdate(birthday: "1990-02-30"))
            }
            #expect(refused?.code == .birthdayInvalid)
            #expect(try await alice.profile.me().user.birthday == "1990-05-17", "nothing changed")
            await server.stop()
        }
    }
}

extension LiveServerSuites.ProfileSDKTests {
    /// `client.contacts` finds people as their privacy allows and keeps what it found.
    @Test func contactsFindPeopleByNicknameAndExactlyAsTheirPrivacyAllows() async throws {
        let (server, alice, bob, _) = try await aliceAndBob()
        try await bob.profile.update(ProfileUpdate(nickname: "Bob 鲍勃"))
        let page = try await alice.contacts.search("鲍勃")
        #expect(page.users.map(\.username) == ["bob"])
        #expect(try alice.store.user(page.users[0].id)?.nickname == "Bob 鲍勃", "kept in the store")
        #expect(try await alice.contacts.lookup(username: "BOB").id == page.users[0].id)

        let hidden = try await bob.profile.updatePrivacy(
            UpdatePrivacyRequest(findByUsername: .nobody, findByNickname: .nobody))
        #expect(hidden.findByUsername == .nobody && hidden.findByEmail == .everyone)
        #expect(try await bob.profile.privacy() == hidden)
        #expect(try await alice.contacts.search("鲍勃").users.isEmpty)
        let refused = await #expect(throws: ParleyError.self) { try await alice.contacts.lookup(username: "bob") }
        #expect(refused?.code == .userNotFound)
        await server.stop()
    }
}

extension LiveServerSuites.ProfileSDKTests {
    /// Alice signed up on her laptop, and signed in on her phone, whose socket is up.
    static func aliceOnLaptopAndConnectedPhone() async throws -> (InProcessServer, ParleyClient, ParleyClient) {
        let server = try await InProcessServer.start()
        let laptop = try makeClient(server.url, device: "laptop")
        try await signUp(laptop, "alice")
        let phone = try makeClient(server.url, device: "phone")
        try await phone.session.login("alice", password: "Passw0rd!")
        await phone.connect()
        try await eventually { await phone.connection.status == .connected }
        return (server, laptop, phone)
    }

    /// `client.sessions` lists the user's devices and signs one out: its socket is closed at
    /// once (not at its next request) and its token no longer works; unknown and ended
    /// sessions are `not_found`; "every other device" leaves this one signed in.
    @Test func aDeviceSignedOutFromAnotherLosesItsSocketAtOnce() async throws {
        let (server, laptop, phone) = try await Self.aliceOnLaptopAndConnectedPhone()
        let tablet = try makeClient(server.url, device: "tablet")
        try await tablet.session.login("alice", password: "Passw0rd!")

        let sessions = try await laptop.sessions.list()
        #expect(sessions.map(\.device) == ["tablet", "phone", "laptop"], "newest first")
        #expect(sessions.filter(\.current).map(\.device) == ["laptop"])
        #expect(sessions.allSatisfy { $0.ip == "127.0.0.1" && $0.revokedAt == nil })

        let phoneSession = try #require(sessions.first { $0.device == "phone" })
        try await laptop.sessions.revoke(phoneSession.id)
        try await eventually("the phone's socket closed") {
            await phone.connection.status == .offline(reason: .sessionRevoked)
        }
        let refused = await #expect(throws: ParleyError.self) { try await phone.profile.me() }
        #expect(refused?.code == .invalidToken || refused?.code == .unauthenticated)
        let again = await #expect(throws: ParleyError.self) { try await laptop.sessions.revoke(phoneSession.id) }
        #expect(again?.code == .notFound)
        let unknown = await #expect(throws: ParleyError.self) { try await laptop.sessions.revoke(SessionID(999_999)) }
        #expect(unknown?.code == .notFound)

        #expect(try await laptop.sessions.revokeOthers() == 1, "the tablet; the phone had ended")
        let after = try await laptop.sessions.list()
        #expect(after.filter { $0.revokedAt == nil }.map(\.device) == ["laptop"])
        #expect(try await laptop.profile.me().user.username == "alice", "this device is still signed in")
        await phone.disconnect()
        await server.stop()
    }
}

extension LiveServerSuites.ProfileSDKTests {
    /// `client.twoFactor` turns two-factor login on with the app's first code; a new device's
    /// login then throws ``SecondFactorRequired`` and completes with a recovery code; a wrong
    /// code is refused by name.
    @Test func twoFactorLoginTakesASecondStepOnANewDevice() async throws {
        let server = try await InProcessServer.start()
        let laptop = try makeClient(server.url, device: "laptop")
        try await signUp(laptop, "alice")
        #expect(try await !laptop.twoFactor.status().enabled)
        let setup = try await laptop.twoFactor.setUp()
        let totp = TOTP(secret: try #require(Base32.decode(setup.secret)))
        let recovery = try await laptop.twoFactor.confirm(
            code: totp.code(at: Int64(Date().timeIntervalSince1970 * 1000))
        ).recoveryCodes
        #expect(try await laptop.twoFactor.status() == TwoFactorStatus(enabled: true, recoveryCodesLeft: 10))

        let phone = try makeClient(server.url, device: "phone")
        let required = await #expect(throws: SecondFactorRequired.self) {
            try await phone.session.login("alice", password: "Passw0rd!")
        }
        let challenge = try #require(required?.challenge)
        #expect(await phone.session.currentUser == nil, "not signed in after the first step")
        let wrong = await #expect(throws: ParleyError.self) {
            try await phone.session.completeLogin(challenge, code: "not-a-code")
        }
        #expect(wrong?.code == .codeInvalid)
        let account = try await phone.session.completeLogin(challenge, code: recovery[0])
        #expect(account.user.username == "alice")
        #expect(try await phone.sessions.list().first { $0.current }?.device == "phone")
        try await phone.twoFactor.disable(code: recovery[1])
        #expect(try await !laptop.twoFactor.status().enabled)
        await server.stop()
    }
}

extension LiveServerSuites.ProfileSDKTests {
    /// `client.profile.changePassword` signs the user's other devices out at once (their
    /// sockets close) and keeps this one; a wrong current password changes nothing.
    @Test func aPasswordChangeSignsTheOtherDevicesOut() async throws {
        let (server, laptop, phone) = try await Self.aliceOnLaptopAndConnectedPhone()

        let wrong = await #expect(throws: ParleyError.self) {
            try await laptop.profile.changePassword(current: "Wrong0ne!", new: "N3w-Secret!")
        }
        #expect(wrong?.code == .currentPasswordWrong)
        #expect(await phone.connection.status == .connected)

        try await laptop.profile.changePassword(current: "Passw0rd!", new: "N3w-Secret!")
        try await eventually("the phone's socket closed") {
            await phone.connection.status == .offline(reason: .sessionRevoked)
        }
        #expect(try await laptop.profile.me().user.username == "alice")
        let tablet = try makeClient(server.url, device: "tablet")
        try await tablet.session.login("alice", password: "N3w-Secret!")
        await phone.disconnect()
        await server.stop()
    }
}
