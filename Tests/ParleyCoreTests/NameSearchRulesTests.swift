import ParleyCore
import Testing

/// `NameSearch`: the rules of finding contacts and groups by name, shared by server and SDK.
@Suite struct NameSearchRulesTests {
    static func user(_ id: Int64, _ username: String, _ nickname: String) -> User {
        User(id: UserID(id), username: username, nickname: nickname, signature: "", createdAt: 0)
    }

    static func contact(_ id: Int64, _ username: String, _ nickname: String, remark: String = "") -> Contact {
        Contact(user: user(id, username, nickname), remark: remark, since: 0)
    }

    @Test func aNameMatchesWhenItHoldsEveryTermAndItsTierSaysHowWell() throws {
        func tier(_ name: String, _ query: String) throws -> Int? {
            NameSearch.tier(of: name, matching: try SearchText.terms(of: query))
        }
        #expect(try tier("张伟", "张伟") == 0)
        #expect(try tier("张伟伟", "张伟") == 1)
        #expect(try tier("小张伟", "张伟") == 2)
        #expect(try tier("Ｊｏｓé Álvarez", "jose alvarez") == 0, "width, case and accents fold")
        #expect(try tier("José Álvarez", "alvarez jose") == 2, "terms in any order")
        #expect(try tier("José Álvarez", "jose x") == nil, "every term must be there")
        #expect(try tier("김민수", "민") == 2, "Korean, one syllable")
        #expect(try tier("たなか🎸", "🎸") == 2, "emoji")
        #expect(try tier("", "a") == nil)
        #expect(try tier("100%_real", "%_") == 2, "wildcards are plain characters")
    }

    @Test func contactsMatchByRemarkNicknameOrUsernameBestFirstThenByShownName() throws {
        let contacts = [
            Self.contact(1, "zoe", "Anna Zoe"), Self.contact(2, "x2", "Hanna"), Self.contact(3, "ann", "Bea"),
            Self.contact(4, "x4", "Carl", remark: "ann"), Self.contact(5, "x5", "Dan", remark: "Annie"),
            Self.contact(6, "x6", "Eve"),
        ]
        let hits = NameSearch.contacts(contacts, matching: try NameSearchQuery("ANN"))
        #expect(
            hits.map(\.contact.user.id.rawValue) == [4, 3, 1, 5, 2],
            "tier 0 (remark 'ann' before username 'ann': shown names ann < bea), then tier 1, then tier 2")
        #expect(hits[1].matched.map(\.field) == [NameField.username])
        #expect(hits[3].matched == [NameField(field: NameField.remark, highlights: [TextRange(start: 0, length: 3)])])
        #expect(NameSearch.contacts(contacts, matching: try NameSearchQuery("ann", limit: 2)).count == 2)
        #expect(NameSearch.contacts(contacts, matching: try NameSearchQuery("anna dan")).isEmpty, "one name holds all")
    }

    @Test func groupsMatchByNameOrByMembersNameFoundByNameFirst() throws {
        let groups = [
            GroupName(id: ConversationID(1), name: "Tennis", memberCount: 3),
            GroupName(id: ConversationID(2), name: "北京团队", memberCount: 4),
            GroupName(id: ConversationID(3), name: "Ten", memberCount: 2),
        ]
        var members = [
            GroupMemberName(conversationId: ConversationID(2), user: Self.user(7, "tenzin", "Tenzin")),
            GroupMemberName(conversationId: ConversationID(2), user: Self.user(8, "bob", "Bob")),
        ]
        for id in 10..<20 {
            members.append(
                GroupMemberName(conversationId: ConversationID(1), user: Self.user(Int64(id), "ten\(id)", "T")))
        }
        let hits = NameSearch.groups(groups, members: members, matching: try NameSearchQuery("ten"))
        #expect(hits.map(\.group.id.rawValue) == [3, 1, 2], "by the name's tier, then found by a member only")
        #expect(hits[1].members.count == NameSearch.membersPerGroup, "members shown per group are capped")
        #expect(hits[2].nameHighlights.isEmpty && hits[2].members.map(\.user.username) == ["tenzin"])
        #expect(
            NameSearch.groups(groups, members: members, matching: try NameSearchQuery("bob")).first?.members.first?
                .matched
                == [
                    NameField(field: NameField.nickname, highlights: [TextRange(start: 0, length: 3)]),
                    NameField(field: NameField.username, highlights: [TextRange(start: 0, length: 3)]),
                ])
        #expect(NameSearch.groups(groups, members: members, matching: try NameSearchQuery("北京")).count == 1)
    }

    @Test func badQueriesAreRefusedPrecisely() {
        #expect(throws: ParleyError(.invalidField, "Query parameter 'limit' must be 1 to 100.")) {
            try NameSearchQuery("a", limit: 0)
        }
        #expect(throws: ParleyError(.missingField, "Query parameter 'q' is required.")) {
            try NameSearchQuery(parameters: [:])
        }
        #expect(throws: ParleyError(.invalidField, "Query parameter 'limit' must be 1 to 100.")) {
            try NameSearchQuery(parameters: ["q": "a", "limit": "-1"])
        }
        #expect((try? NameSearchQuery(parameters: ["q": "a", "other": "x"]))?.limit == NameSearch.defaultLimit)
    }
}
