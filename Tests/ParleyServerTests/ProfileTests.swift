import Foundation
import ParleyCore
import Testing

/// A profile's details (issue 11): set, seen by others, removed, refused field by field,
/// and synced to the user's other devices.
@Suite struct ProfileTests {
    @Test func detailsAreSetSeenByOthersRemovedAndReachTheOtherDevicesOnce() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let laptop = try await api.logIn("alice", device: "laptop")
            let before: SyncResponse = try await api.call(.get, "/v1/sync", token: laptop.token)
            let picture = try await api.upload(testPNG(64), as: alice).fileId
            let set: Account = try await api.call(
                .patch, "/v1/me",
                ProfileUpdate(
                    nickname: "Alice 李", signature: "在上海\nin Shanghai", avatar: picture, gender: "female",
                    birthday: "1996-02-29", region: "CN-SH"),
                token: alice.token)
            let expected = User(
                id: alice.id, username: "alice", nickname: "Alice 李", signature: "在上海\nin Shanghai",
                avatar: picture, gender: .female, birthday: "1996-02-29", region: "CN-SH",
                createdAt: set.user.createdAt)
            #expect(set.user == expected)
            let seen: User = try await api.call(.get, "/v1/users/\(alice.id)", token: bob.token)
            #expect(seen == expected, "another user sees every detail")
            let byName: User = try await api.call(.get, "/v1/users/by-username/ALICE", token: bob.token)
            #expect(byName == expected)

            let partly: Account = try await api.call(
                .patch, "/v1/me", ProfileUpdate(avatar: "", birthday: ""), token: alice.token)
            #expect(partly.user.avatar == nil && partly.user.birthday == nil, "empty removes")
            #expect(partly.user.gender == .female && partly.user.region == "CN-SH", "what is left out stays")
            let raw = try await api.raw(.get, "/v1/users/\(alice.id)", token: bob.token).body
            #expect(!raw.contains("avatar") && !raw.contains("birthday"), "a detail not given is absent: \(raw)")

            let changes: SyncResponse = try await api.call(
                .get, "/v1/sync?cursor=\(before.cursor)", token: laptop.token)
            let profiles = changes.events.compactMap { event -> User? in
                guard case .profileUpdated(let updated) = event.body else { return nil }
                return updated.account.user
            }
            #expect(profiles.count == 2, "each change once, through sync")
            #expect(profiles.last == partly.user)
        }
    }

    @Test func eachBadDetailIsRefusedByItsOwnCodeAndChangesNothing() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let _: Account = try await api.call(
                .patch, "/v1/me", ProfileUpdate(gender: "other", birthday: "2000-01-31", region: "DE"),
                token: alice.token)
            let cases: [(String, ErrorCode)] = [
                (#"{"gender":"unknown"}"#, .genderInvalid), (#"{"gender":"Female"}"#, .genderInvalid),
                (#"{"birthday":"2023-02-29"}"#, .birthdayInvalid), (#"{"birthday":"1899-12-31"}"#, .birthdayInvalid),
                (#"{"birthday":"2999-01-01"}"#, .birthdayInvalid), (#"{"birthday":"2000-1-31"}"#, .birthdayInvalid),
                (#"{"birthday":"2000-13-01"}"#, .birthdayInvalid), (#"{"birthday":"２０００-01-01"}"#, .birthdayInvalid),
                (#"{"region":"cn"}"#, .regionInvalid), (#"{"region":"XX"}"#, .regionInvalid),
                (#"{"region":"CN-"}"#, .regionInvalid), (#"{"region":"CN-ABCD"}"#, .regionInvalid),
                (#"{"region":"CHN"}"#, .regionInvalid), (#"{"avatar":"has space"}"#, .avatarInvalid),
                (#"{"avatar":"\#(String(repeating: "a", count: 129))"}"#, .avatarInvalid),
                (#"{"avatar":"nosuchfile00000000000000"}"#, .avatarInvalid),
                (#"{"nickname":""}"#, .nicknameInvalid), (#"{"gender":"male","region":"??"}"#, .regionInvalid),
                (#"{"birthday":19960229}"#, .invalidField), (#"{}"#, .missingField), (#"{"age":3}"#, .unknownField),
            ]
            for (body, code) in cases {
                let refused = try await api.raw(.patch, "/v1/me", body: body, token: alice.token)
                #expect(refused.status == 400, "\(body)")
                #expect(try decodeJSON(ErrorBody.self, refused.body).error.code == code, "\(body)")
            }
            let me: Account = try await api.call(.get, "/v1/me", token: alice.token)
            #expect(me.user.gender == .other && me.user.birthday == "2000-01-31" && me.user.region == "DE")
            let leapDay: Account = try await api.call(
                .patch, "/v1/me", ProfileUpdate(birthday: "2000-02-29", region: "US-CA"), token: alice.token)
            #expect(leapDay.user.birthday == "2000-02-29" && leapDay.user.region == "US-CA")
        }
    }
}
