import Foundation
import ParleyCore
import Testing

/// Registration, login by any identifier, sessions, refresh, profile and lockout.
@Suite struct AccountTests {
    @Test func loginWorksWithUsernameEmailOrPhoneAndRecordsTheDevice() async throws {
        try await withServer { api in
            let _: Account = try await api.call(
                .post, "/v1/accounts",
                RegisterRequest(
                    username: "Alice", password: "Passw0rd!", email: "Alice@Example.com", phone: "+4915112345678"))
            let byName = try await api.logIn("alice", device: "cli")
            let byEmail = try await api.logIn("alice@example.com", device: "browser")
            let byPhone = try await api.logIn("+4915112345678", device: "iphone")
            #expect(Set([byName.id, byEmail.id, byPhone.id]).count == 1)

            let list: SessionList = try await api.call(.get, "/v1/sessions", token: byEmail.token)
            #expect(list.sessions.map(\.device) == ["iphone", "browser", "cli"])
            #expect(list.sessions.allSatisfy { $0.ip == "127.0.0.1" && $0.revokedAt == nil })
            #expect(list.sessions.filter(\.current).map(\.device) == ["browser"])

            let me: Account = try await api.call(.get, "/v1/me", token: byName.token)
            #expect(me.email == "alice@example.com")
            #expect(me.user.username == "Alice")
        }
    }

    @Test func wrongPasswordsLockTheAccountAfterFiveTries() async throws {
        try await withServer { api in
            _ = try await api.signUp("alice")
            for _ in 0..<5 {
                let failure = try await capture { _ = try await api.logIn("alice", password: "Wrong-pass1") }
                #expect(failure?.error.code == .invalidCredentials)
            }
            let locked = try await capture { _ = try await api.logIn("alice") }
            #expect(locked?.status == 429)
            #expect(locked?.error.code == .tooManyAttempts)
            let unknown = try await capture { _ = try await api.logIn("nobody") }
            #expect(unknown?.error.code == .invalidCredentials, "unknown users look like wrong passwords")
        }
    }

    @Test func refreshTokenRotatesAndWorksOnce() async throws {
        try await withServer { api in
            _ = try await api.signUp("alice")
            let first: TokenResponse = try await api.call(
                .post, "/v1/sessions", LoginRequest(login: "alice", password: "Passw0rd!"))
            let second: TokenResponse = try await api.call(
                .post, "/v1/sessions/refresh", RefreshRequest(refreshToken: first.refreshToken))
            #expect(second.session.id == first.session.id)
            #expect(second.accessToken != first.accessToken)
            let me: Account = try await api.call(.get, "/v1/me", token: second.accessToken)
            #expect(me.user.username == "alice")
            let replay = try await capture {
                let _: TokenResponse = try await api.call(
                    .post, "/v1/sessions/refresh", RefreshRequest(refreshToken: first.refreshToken))
            }
            #expect(replay?.error.code == .invalidToken)
            let oldAccess = try await capture {
                let _: Account = try await api.call(.get, "/v1/me", token: first.accessToken)
            }
            #expect(oldAccess?.error.code == .invalidToken)
        }
    }

    @Test func profileChangesAreValidatedAndReachTheUsersOtherDevices() async throws {
        try await withServer { api in
            let phone = try await api.signUp("alice")
            let laptop = try await api.logIn("alice", device: "laptop")
            let socket = try await LiveSocket.connect(api.webSocketURL, token: laptop.token)
            let updated: Account = try await api.call(
                .patch, "/v1/me", ProfileUpdate(nickname: "Ali", signature: "Hello 👋"), token: phone.token)
            #expect(updated.user.nickname == "Ali")
            #expect(updated.user.signature == "Hello 👋")
            let event = try await socket.waitFor { $0.type == "event" }
            #expect(try event.payload(UserEvent.self).body == .profileUpdated(ProfileUpdated(account: updated)))

            let tooLong = try await capture {
                let _: Account = try await api.call(
                    .patch, "/v1/me", ProfileUpdate(signature: String(repeating: "s", count: 141)), token: phone.token)
            }
            #expect(tooLong?.error.code == .signatureInvalid)
            let me: Account = try await api.call(.get, "/v1/me", token: phone.token)
            #expect(me.user.signature == "Hello 👋")
            let user: User = try await api.call(.get, "/v1/users/by-username/ALICE", token: laptop.token)
            #expect(user.id == phone.id)
            await socket.close()
        }
    }
}

struct SessionList: Codable {
    var sessions: [SessionInfo]
}
