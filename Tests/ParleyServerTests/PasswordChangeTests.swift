import Foundation
import HTTPTypes
import ParleyCore
import Testing

/// `POST /v1/me/password`: the current password is checked (and a wrong one counts toward
/// the account's lockout), the new one follows the rules, and every other session ends.
@Suite struct PasswordChangeTests {
    static func change(_ api: TestAPI, _ current: String, _ new: String, token: String?) async throws
        -> (status: Int, body: String, headers: HTTPFields)
    {
        let body = String(
            decoding: try JSONEncoder().encode(ChangePasswordRequest(currentPassword: current, newPassword: new)),
            as: UTF8.self)
        return try await api.raw(.post, "/v1/me/password", body: body, token: token)
    }

    @Test func aChangeSignsOtherDevicesOutAndTheOldPasswordStopsWorking() async throws {
        try await withServer { api in
            let laptop = try await api.signUp("alice", device: "laptop")
            let phone = try await api.logIn("alice", device: "phone")

            let wrong = try await Self.change(api, "Wrong0ne!", "N3w-Secret!", token: laptop.token)
            #expect(wrong.status == 403 && wrong.body.contains("current_password_wrong"))
            let weak = try await Self.change(api, "Passw0rd!", "short", token: laptop.token)
            #expect(weak.status == 400 && weak.body.contains("password_too_short"))
            let unsigned = try await Self.change(api, "Passw0rd!", "N3w-Secret!", token: nil)
            #expect(unsigned.status == 401)
            let missing = try await api.raw(
                .post, "/v1/me/password", body: #"{"currentPassword":"Passw0rd!"}"#, token: laptop.token)
            #expect(missing.status == 400 && missing.body.contains("missing_field"))
            #expect(try await api.raw(.get, "/v1/me", token: phone.token).status == 200, "nothing changed yet")

            let changed = try await Self.change(api, "Passw0rd!", "N3w-Secret!", token: laptop.token)
            #expect(changed.status == 204, "\(changed.body)")
            let ended = try await api.raw(.get, "/v1/me", token: phone.token)
            #expect(ended.status == 401 && ended.body.contains("invalid_token"), "the phone is signed out")
            #expect(try await api.raw(.get, "/v1/me", token: laptop.token).status == 200, "this device stays")
            let old = try await api.raw(
                .post, "/v1/sessions",
                body: #"{"login":"alice","password":"Passw0rd!"}"#)
            #expect(old.status == 401 && old.body.contains("invalid_credentials"))
            _ = try await api.logIn("alice", password: "N3w-Secret!")
            let sessions: SessionList = try await api.call(.get, "/v1/sessions", token: laptop.token)
            #expect(sessions.sessions.filter { $0.revokedAt == nil }.count == 2, "the laptop and the new login")
        }
    }

    @Test func wrongCurrentPasswordsLockTheAccountLikeFailedLogins() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            for _ in 0..<5 {
                #expect(try await Self.change(api, "Wrong0ne!", "N3w-Secret!", token: alice.token).status == 403)
            }
            let locked = try await Self.change(api, "Passw0rd!", "N3w-Secret!", token: alice.token)
            #expect(locked.status == 429 && locked.headers[.retryAfter] != nil)
            let login = try await api.raw(.post, "/v1/sessions", body: #"{"login":"alice","password":"Passw0rd!"}"#)
            #expect(login.status == 429, "the same lock as logins")
        }
    }
}
