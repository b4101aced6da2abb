import Foundation
import ParleyCore
import Testing

/// Finding people (issue 11, item 2): exact lookups by username, email and phone, nickname
/// search, and the privacy settings that decide who is found how.
@Suite struct FindingPeopleTests {
    @Test func eachLookupFindsAUserUntilTheyHideFromItAndAHiddenUserLooksLikeNoUser() async throws {
        try await withServer { api in
            let _: Account = try await api.call(
                .post, "/v1/accounts",
                RegisterRequest(
                    username: "alice", password: "Passw0rd!", email: "Alice@Example.com", phone: "+8613800138000"))
            let alice = try await api.logIn("alice")
            let bob = try await api.signUp("bob")
            let me: Account = try await api.call(.get, "/v1/me", token: alice.token)
            #expect(me.privacy == .defaults, "findable every way until she says otherwise")
            for query in ["username=ALICE", "email=alice@example.COM", "phone=%2B8613800138000"] {
                let found: User = try await api.call(.get, "/v1/users/lookup?\(query)", token: bob.token)
                #expect(found.id == alice.id, "\(query)")
            }
            let hidden: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(findByEmail: .nobody, findByPhone: .nobody),
                token: alice.token)
            #expect(hidden == PrivacySettings(findByEmail: .nobody, findByPhone: .nobody))
            let unknown = try await api.raw(.get, "/v1/users/lookup?email=nobody@example.com", token: bob.token)
            for query in ["email=alice@example.com", "phone=%2B8613800138000"] {
                let refused = try await api.raw(.get, "/v1/users/lookup?\(query)", token: bob.token)
                #expect(refused.status == 404, "\(query)")
                #expect(try decodeJSON(ErrorBody.self, refused.body).error.code == .userNotFound)
                let herself: User = try await api.call(.get, "/v1/users/lookup?\(query)", token: alice.token)
                #expect(herself.id == alice.id, "she always finds herself")
            }
            #expect(unknown.status == 404, "a hidden user gets the same answer as nobody")
            let byName: User = try await api.call(.get, "/v1/users/lookup?username=alice", token: bob.token)
            #expect(byName.id == alice.id, "the other ways stay as they were")

            let _: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(findByUsername: .nobody), token: alice.token)
            let byPath = try await api.raw(.get, "/v1/users/by-username/alice", token: bob.token)
            #expect(byPath.status == 404, "the by-username path is a lookup by username too")
            let byId: User = try await api.call(.get, "/v1/users/\(alice.id)", token: bob.token)
            #expect(byId.id == alice.id, "an id someone already holds is not a search")
            let settings: PrivacySettings = try await api.call(.get, "/v1/me/privacy", token: alice.token)
            #expect(settings == PrivacySettings(findByUsername: .nobody, findByEmail: .nobody, findByPhone: .nobody))
        }
    }

    @Test func nicknameSearchFoldsCaseAccentsAndWidthRanksExactThenPrefixAndPagesWithACursor() async throws {
        try await withServer { api in
            let seeker = try await api.signUp("seeker")
            var ids: [String: UserID] = [:]
            for (username, nickname) in [
                ("user1", "小张"), ("user2", "张伟伟"), ("user3", "张伟"), ("user4", "Émile"), ("user5", "ＥＭＩＬＥ fan"),
                ("user6", "张三"),
                ("user7", "hidden 张"),
            ] {
                let user = try await api.signUp(username)
                let _: Account = try await api.call(
                    .patch, "/v1/me", ProfileUpdate(nickname: nickname), token: user.token)
                ids[nickname] = user.id
                if username == "user7" {
                    let _: PrivacySettings = try await api.call(
                        .patch, "/v1/me/privacy", UpdatePrivacyRequest(findByNickname: .nobody), token: user.token)
                }
            }
            func search(_ query: String, as user: TestUser? = nil) async throws -> [String] {
                let q = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let page: UserSearchPage = try await api.call(
                    .get, "/v1/users/search?q=\(q)", token: (user ?? seeker).token)
                return page.users.map(\.nickname)
            }
            #expect(try await search("张伟") == ["张伟", "张伟伟"], "the whole nickname first, then its start")
            #expect(try await search("张") == ["张伟伟", "张伟", "张三", "小张"], "starts (by id), then anywhere; never hidden")
            #expect(try await search("émile") == ["Émile", "ＥＭＩＬＥ fan"], "accents fold away, as in message search")
            #expect(try await search("EMILE") == ["Émile", "ＥＭＩＬＥ fan"], "full width folds to plain letters")
            #expect(try await search(" 伟伟 ") == ["张伟伟"], "trimmed")
            let u3 = try await api.logIn("user3")
            #expect(try await search("张伟", as: u3) == ["张伟伟"], "nobody finds themselves")

            var pages: [[String]] = []
            var cursor: String?
            repeat {
                let page: UserSearchPage = try await api.call(
                    .get, "/v1/users/search?q=%E5%BC%A0&limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""),
                    token: seeker.token)
                pages.append(page.users.map(\.nickname))
                cursor = page.nextCursor
            } while cursor != nil
            #expect(pages == [["张伟伟", "张伟", "张三"], ["小张"]])
        }
    }

    @Test func badQueriesAndSettingsGetPreciseErrors() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let long = String(repeating: "a", count: FindingRules.maxQueryLength + 1)
            let cases: [(String, ErrorCode)] = [
                ("/v1/users/search", .invalidField), ("/v1/users/search?q=", .invalidField),
                ("/v1/users/search?q=%20%20", .invalidField),
                ("/v1/users/search?q=\(long)", .invalidField), ("/v1/users/search?q=a&limit=0", .invalidField),
                ("/v1/users/search?q=a&limit=51", .invalidField), ("/v1/users/search?q=a&limit=x", .invalidField),
                ("/v1/users/search?q=a&cursor=abc", .invalidCursor), ("/v1/users/search?q=a&cursor=-1", .invalidCursor),
                ("/v1/users/search?q=a&cursor=01", .invalidCursor),
                ("/v1/users/search?q=a&cursor=\(FindingRules.maxSearchDepth)", .invalidCursor),
                ("/v1/users/lookup", .invalidField),
                ("/v1/users/lookup?username=a&email=b@c.de", .invalidField),
            ]
            for (path, code) in cases {
                let answer = try await api.raw(.get, path, token: alice.token)
                #expect(answer.status == 400, "\(path)")
                #expect(try decodeJSON(ErrorBody.self, answer.body).error.code == code, "\(path)")
            }
            for (body, code) in [
                ("{}", ErrorCode.missingField), (#"{"findByEmail":"friends"}"#, .invalidField),
                (#"{"findMe":"nobody"}"#, .unknownField),
            ] {
                let answer = try await api.raw(.patch, "/v1/me/privacy", body: body, token: alice.token)
                #expect(answer.status == 400, "\(body)")
                #expect(try decodeJSON(ErrorBody.self, answer.body).error.code == code, "\(body)")
            }
            let deepest = try await api.raw(
                .get, "/v1/users/search?q=a&cursor=\(FindingRules.maxSearchDepth - 1)", token: alice.token)
            #expect(deepest.status == 200, "the last position paging reaches is served (one past it is refused above)")
            let unchanged: PrivacySettings = try await api.call(.get, "/v1/me/privacy", token: alice.token)
            #expect(unchanged == .defaults)
            let anonymous = try await api.raw(.get, "/v1/users/search?q=a")
            #expect(anonymous.status == 401)
        }
    }
}
