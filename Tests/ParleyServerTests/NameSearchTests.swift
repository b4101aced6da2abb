import Foundation
import ParleyCore
import Testing

/// Finding one's contacts and groups by name over HTTP (issue 15, item 3): only among one's
/// own friends and groups, by remark, nickname, username, group name or a member's name,
/// best match first, with highlights; bad input gets a precise error.
@Suite struct NameSearchTests {
    typealias Role = GroupAuthorizationTests.Role

    static func path(_ endpoint: Endpoint, _ query: String, limit: Int? = nil) -> String {
        var components = URLComponents()
        components.path = endpoint.path
        components.queryItems =
            [URLQueryItem(name: "q", value: query)]
            + (limit.map { [URLQueryItem(name: "limit", value: "\($0)")] } ?? [])
        return components.string!.replacingOccurrences(of: "+", with: "%2B")
    }

    static func contacts(_ api: TestAPI, _ query: String, as user: TestUser, limit: Int? = nil) async throws
        -> [ContactSearchHit]
    {
        let result: ContactSearchResult = try await api.call(
            .get, path(.searchContacts, query, limit: limit), token: user.token)
        return result.contacts
    }

    static func groups(_ api: TestAPI, _ query: String, as user: TestUser, limit: Int? = nil) async throws
        -> [GroupSearchHit]
    {
        let result: GroupSearchResult = try await api.call(
            .get, path(.searchGroups, query, limit: limit), token: user.token)
        return result.groups
    }

    static func nickname(_ api: TestAPI, _ user: TestUser, _ nickname: String) async throws {
        let _: Account = try await api.call(.patch, "/v1/me", ProfileUpdate(nickname: nickname), token: user.token)
    }

    @Test func contactsAreFoundByRemarkNicknameOrUsernameAmongFriendsOnly() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            var friends: [String: TestUser] = [:]
            for (username, nickname) in [
                ("bob", "张伟"), ("carol", "José Álvarez"), ("ann", "Ann"), ("annabel", "Annabel"), ("joanna", "Joanna"),
            ] {
                let user = try await api.signUp(username)
                try await Self.nickname(api, user, nickname)
                try await api.befriend(alice, user)
                friends[username] = user
            }
            let _: Contact = try await api.call(
                .patch, "/v1/contacts/\(friends["bob"]!.id)", UpdateContactRequest(remark: "老张 Zhang"),
                token: alice.token)
            let stranger = try await api.signUp("dave")
            try await Self.nickname(api, stranger, "张三")

            let byHan = try await Self.contacts(api, "张", as: alice)
            #expect(byHan.map(\.contact.user.username) == ["bob"], "dave is no friend of alice's")
            #expect(byHan.first?.matched.map(\.field) == ["remark", "nickname"])
            #expect(byHan.first?.matched.first?.highlights == [TextRange(start: 1, length: 1)])
            #expect(try await Self.contacts(api, "ZHANG", as: alice).map(\.contact.user.username) == ["bob"])
            let accented = try await Self.contacts(api, "jose alv", as: alice)
            #expect(accented.map(\.contact.user.username) == ["carol"], "accents and case ignored, every word")
            #expect(
                accented.first?.matched == [
                    NameField(
                        field: "nickname", highlights: [TextRange(start: 0, length: 4), TextRange(start: 5, length: 3)])
                ])
            #expect(
                try await Self.contacts(api, "ann", as: alice).map(\.contact.user.username) == [
                    "ann", "annabel", "joanna",
                ], "the whole name, then its start, then anywhere")
            #expect(try await Self.contacts(api, "ann", as: alice, limit: 1).map(\.contact.user.username) == ["ann"])
            #expect(try await Self.contacts(api, "joanna x", as: alice).isEmpty, "every word must match")
            #expect(try await Self.contacts(api, "张", as: friends["bob"]!).isEmpty, "bob's only friend is alice")

            // A friend removed is no longer found.
            let _: EmptyBody = try await api.call(.delete, "/v1/contacts/\(friends["bob"]!.id)", token: alice.token)
            #expect(try await Self.contacts(api, "张", as: alice).isEmpty)
        }
    }

    @Test func groupsAreFoundByNameOrMemberNamesByTheirMembersOnly() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            try await Self.nickname(api, bob, "张伟")
            let carol = try await api.signUp("carol")
            try await Self.nickname(api, carol, "Carol Design")
            let dave = try await api.signUp("dave")
            try await Self.nickname(api, dave, "张三")
            let beijing = try await api.createGroup("北京团队", by: alice, with: [bob])
            let design = try await api.createGroup("Design", by: carol, with: [alice])
            _ = try await api.createGroup("张家", by: dave, with: [carol])

            let byMember = try await Self.groups(api, "张", as: alice)
            #expect(byMember.map(\.group.id) == [beijing], "found by bob, not dave's group alice is not in")
            #expect(byMember.first?.nameHighlights == [])
            #expect(byMember.first?.members.map(\.user.id) == [bob.id])
            #expect(byMember.first?.group == GroupName(id: beijing, name: "北京团队", memberCount: 2))

            let byName = try await Self.groups(api, "北京", as: alice)
            #expect(byName.map(\.group.id) == [beijing])
            #expect(byName.first?.nameHighlights == [TextRange(start: 0, length: 2)])

            #expect(try await Self.groups(api, "o", as: alice).count == 2, "by bob and by carol")
            #expect(try await Self.groups(api, "o", as: alice, limit: 1).count == 1, "the limit holds")
            let both = try await Self.groups(api, "design", as: alice)
            #expect(both.map(\.group.id) == [design], "by its name and by carol's, once")
            #expect(both.first?.members.map(\.user.id) == [carol.id])
            #expect(
                try await Self.groups(api, "alice", as: alice).isEmpty, "the searcher is not a member others find")
            #expect(try await Self.groups(api, "张", as: carol).map(\.group.id).count == 1, "carol sees 张家 by its name")

            // One who left a group no longer finds it.
            let _: EmptyBody = try await api.call(
                .delete, "/v1/conversations/\(design)/members/\(alice.id)", token: alice.token)
            #expect(try await Self.groups(api, "design", as: alice).isEmpty)
        }
    }

    @Test func eachRelationshipToAGroupFindsItOrNot() async throws {
        try await withServer { api in
            var users: [Role: TestUser] = [:]
            for role in Role.allCases { users[role] = try await api.signUp(role.rawValue.lowercased()) }
            let target = try await api.signUp("needle")
            let cast = try await GroupAuthorizationTests.cast(
                api, users: users, target: target, newcomer: try await api.signUp("newcomer"))
            let finds: [Role: Bool] = [
                .owner: true, .admin: true, .member: true, .mutedMember: true, .removedMember: false, .nonMember: false,
            ]
            for role in Role.allCases {
                let byMember = try await Self.groups(api, "needle", as: users[role]!)
                #expect(byMember.map(\.group.id) == (finds[role]! ? [cast.group] : []), "\(role) by member")
                let byName = try await Self.groups(api, "matrix", as: users[role]!)
                #expect(byName.map(\.group.id) == (finds[role]! ? [cast.group] : []), "\(role) by name")
            }
        }
    }

    @Test func badInputGetsAPreciseError() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            for endpoint in [Endpoint.searchContacts, .searchGroups] {
                for (query, code) in [
                    ("", "missing_field"), ("?q=%20%20", "invalid_field"), ("?q=a&limit=0", "invalid_field"),
                    ("?q=a&limit=101", "invalid_field"), ("?q=a&limit=ten", "invalid_field"),
                    ("?q=a&q=b", "invalid_field"),
                    ("?q=%01", "invalid_field"), ("?q=" + String(repeating: "x", count: 101), "invalid_field"),
                ] {
                    let response = try await api.raw(.get, endpoint.path + query, token: alice.token)
                    #expect(response.status == 400, "\(endpoint) \(query)")
                    #expect(response.body.contains("\"\(code)\""), "\(endpoint) \(query): \(response.body)")
                }
                let anonymous = try await api.raw(.get, endpoint.path + "?q=a")
                #expect(anonymous.status == 401)
            }
        }
    }
}
