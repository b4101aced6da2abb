import Foundation
import ParleyCore
import Testing

/// Message search over HTTP: each relationship to a group finds what it may read, results
/// carry highlights and pages, and bad input gets a precise error.
@Suite struct SearchTests {
    typealias Role = GroupAuthorizationTests.Role

    /// The path of a search, its parameters percent-encoded.
    static func path(_ query: MessageSearchQuery) -> String {
        var components = URLComponents()
        components.path = Endpoint.searchMessages.path
        components.queryItems = query.parameters.map { URLQueryItem(name: $0.name, value: $0.value) }
        // URLComponents leaves "+" alone, which a server may read as a space.
        return components.string!.replacingOccurrences(of: "+", with: "%2B")
    }

    static func search(_ api: TestAPI, _ query: MessageSearchQuery, as user: TestUser) async throws
        -> MessageSearchPage
    {
        try await api.call(.get, path(query), token: user.token)
    }

    @Test func eachRelationshipToAGroupFindsWhatItMayRead() async throws {
        try await withServer { api in
            var users: [Role: TestUser] = [:]
            for role in Role.allCases { users[role] = try await api.signUp(role.rawValue.lowercased()) }
            let target = try await api.signUp("target")
            let cast = try await GroupAuthorizationTests.cast(
                api, users: users, target: target, newcomer: try await api.signUp("newcomer"))
            _ = try await api.sendText("the needle in the group", to: cast.group, as: target)
            let direct: ConversationDetail = try await api.call(
                .post, "/v1/conversations/direct", OpenDirectRequest(userId: users[.nonMember]!.id),
                token: target.token)
            _ = try await api.sendText("a needle between two", to: direct.conversation.id, as: target)

            let expected: [Role: [String]] = [
                .owner: ["the needle in the group"], .admin: ["the needle in the group"],
                .member: ["the needle in the group"], .mutedMember: ["the needle in the group"],
                .removedMember: [], .nonMember: ["a needle between two"],
            ]
            for role in Role.allCases {
                let page = try await Self.search(api, try MessageSearchQuery("NEEDLE"), as: users[role]!)
                #expect(page.hits.map { $0.message.searchableText } == expected[role]!, "\(role)")
                var inGroup = try MessageSearchQuery("needle")
                inGroup.conversationId = cast.group
                let filtered = try await Self.search(api, inGroup, as: users[role]!)
                #expect(
                    filtered.hits.count == (expected[role]!.contains("the needle in the group") ? 1 : 0),
                    "\(role): a group one cannot read answers nothing, and tells nothing")
            }
        }
    }

    @Test func resultsCarryHighlightsAndPageWithACursor() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let group = try await api.createGroup("g", by: alice, with: [])
            for text in ["去北京 and 北京 again", "北京烤鸭 + 100%", "上海", "北京"] {
                _ = try await api.sendText(text, to: group, as: alice)
            }
            var query = try MessageSearchQuery("北京", limit: 2)
            let first = try await Self.search(api, query, as: alice)
            #expect(first.hits.map(\.message.searchableText) == ["北京", "北京烤鸭 + 100%"])
            #expect(first.hits[1].highlights == [TextRange(start: 0, length: 2)])
            query.cursor = SearchCursor(try #require(first.nextCursor))
            let second = try await Self.search(api, query, as: alice)
            #expect(second.hits.map(\.message.searchableText) == ["去北京 and 北京 again"])
            #expect(second.hits[0].highlights == [TextRange(start: 1, length: 2), TextRange(start: 8, length: 2)])
            #expect(second.nextCursor == nil)
            #expect(try await Self.search(api, try MessageSearchQuery("+ 100%"), as: alice).hits.count == 1)
        }
    }

    @Test func badInputGetsAPreciseErrorAndChangesNothing() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let path = Endpoint.searchMessages.path
            #expect(try await api.raw(.get, "\(path)?q=x").status == 401)
            for (query, code) in [
                ("", ErrorCode.missingField), ("?q=", .invalidField), ("?q=%20%20", .invalidField),
                ("?q=a&q=b", .invalidField), ("?q=a&limit=0", .invalidField), ("?q=a&limit=1000", .invalidField),
                ("?q=a&since=9&until=3", .invalidField), ("?q=a&kind=system", .invalidField),
                ("?q=a&hasFile=1", .invalidField), ("?q=a&cursor=nonsense", .invalidField),
                ("?q=a&senderId=-4", .invalidField), ("?q=\(String(repeating: "a", count: 101))", .invalidField),
                ("?q=a%00b", .invalidField),
            ] {
                let answer = try await api.raw(.get, path + query, token: alice.token)
                #expect(answer.status == 400, "\(query): \(answer.body)")
                #expect(answer.body.contains("\"\(code.rawValue)\""), "\(query): \(answer.body)")
            }
        }
    }
}
