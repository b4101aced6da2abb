import Foundation
import ParleyCore
import ParleyStore
import Testing

/// The storage contract of message search: the same query finds the same messages, in the
/// same order, on every backend, and only what the searcher may still read.
extension StoreContractTests {
    /// What `userId` finds for `text` (with `filters` applied), every page followed, as
    /// the messages' texts (or file names).
    func found(
        _ store: any ParleyStore, _ text: String, by userId: UserID, pageSize: Int = 100,
        _ filters: (inout MessageSearchQuery) -> Void = { _ in }
    ) async throws -> [String] {
        var query = try MessageSearchQuery(text, limit: pageSize)
        filters(&query)
        var texts: [String] = []
        while true {
            let page = MessageSearchPage(query, found: try await store.searchMessages(query, for: userId))
            texts += page.hits.map { $0.message.searchableText ?? "?" }
            guard let next = page.nextCursor else { return texts }
            query.cursor = SearchCursor(next)
        }
    }

    /// A file message, with its file stored first (a message may show only a stored file).
    func file(_ name: String, to target: MessageTarget, from sender: UserID, id: String, in store: any ParleyStore)
        async throws -> NewMessage
    {
        let fileId = "file" + String(repeating: "0", count: 20 - id.count) + id
        let record = upload(
            "up" + String(repeating: "0", count: 22 - id.count) + id, by: sender,
            sha256: fileId + fileId + "0000000000000000")
        try await store.createUpload(record)
        _ = try await store.completeUpload(
            record,
            as: StoredFile(
                id: fileId, sha256: record.sha256, size: 1_000, mimeType: "application/pdf", createdAt: Self.now),
            at: Self.now)
        return try NewMessage(
            target: target, senderId: sender, clientMsgId: id, kind: .file,
            content: .object(["fileId": .string(fileId), "name": .string(name), "size": 1_000]), sentAt: Self.now)
    }

    @Test(arguments: StoreBackend.available)
    func searchFindsSubstringsInEveryScriptFoldedAndRankedPhraseFirst(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "dan")
        let (alice, bob, dan) = (users[0], users[1], users[2])
        let group = try await store.createGroup(name: "g", ownerId: alice, memberIds: [bob], at: Self.now).id
        let other = try await store.createGroup(name: "h", ownerId: bob, memberIds: [dan], at: Self.now).id
        var number = 0
        func say(_ words: String, by sender: UserID = alice, in conversation: ConversationID? = nil) async throws {
            number += 1
            _ = try await store.appendMessage(
                text(words, to: .conversation(conversation ?? group), from: sender, id: "m\(number)"))
        }
        try await say("Hello World from the Crème Brûlée stand")
        try await say("我们明天去北京吧", by: bob)
        try await say("東京タワーに行きました", by: bob)
        try await say("한국어 텍스트입니다")
        try await say("emoji 😀 party 🎉", by: bob)
        try await say("world, then hello")
        try await say("hello world for bob and dan", by: bob, in: other)
        _ = try await store.appendMessage(
            try await file("Report-2026.PDF", to: .conversation(group), from: bob, id: "f1", in: store))
        _ = try await store.appendMessage(text("HELLO WORLD in private", to: .directWith(bob), from: alice, id: "d1"))

        #expect(
            try await found(store, "hello world", by: alice)
                == ["HELLO WORLD in private", "Hello World from the Crème Brûlée stand", "world, then hello"],
            "the phrase first, newest first; then the terms apart; never a conversation alice is not in")
        #expect(try await found(store, "creme brulee", by: alice) == ["Hello World from the Crème Brûlée stand"])
        #expect(try await found(store, "CRÈME", by: alice).count == 1)
        #expect(try await found(store, "北京", by: alice) == ["我们明天去北京吧"], "two characters")
        #expect(try await found(store, "明天去北京", by: alice) == ["我们明天去北京吧"])
        #expect(try await found(store, "京", by: alice) == ["東京タワーに行きました", "我们明天去北京吧"], "one character")
        #expect(try await found(store, "ﾀﾜｰ", by: alice) == ["東京タワーに行きました"], "half-width katakana")
        #expect(try await found(store, "国語", by: alice).isEmpty, "Chinese characters are not Korean")
        #expect(try await found(store, "국어", by: alice) == ["한국어 텍스트입니다"])
        #expect(try await found(store, "😀", by: alice) == ["emoji 😀 party 🎉"])
        #expect(try await found(store, "🎉 party", by: alice) == ["emoji 😀 party 🎉"])
        #expect(try await found(store, "report-2026", by: alice) == ["Report-2026.PDF"], "a file's name")
        #expect(try await found(store, "100%", by: alice).isEmpty, "LIKE's wildcards are plain characters")
        #expect(try await found(store, "h_llo", by: alice).isEmpty)
        #expect(try await found(store, "hello", by: dan) == ["hello world for bob and dan"])

        // Filters.
        #expect(try await found(store, "report", by: alice) { $0.hasFile = true } == ["Report-2026.PDF"])
        #expect(try await found(store, "report", by: alice) { $0.hasFile = false }.isEmpty)
        #expect(try await found(store, "report", by: alice) { $0.kind = .text }.isEmpty)
        #expect(try await found(store, "hello", by: alice) { $0.conversationId = group }.count == 2)
        #expect(
            try await found(store, "hello", by: bob) { $0.senderId = bob } == ["hello world for bob and dan"])
        #expect(try await found(store, "hello", by: alice) { $0.since = Self.now + 1 }.isEmpty)
        #expect(try await found(store, "hello", by: alice) { $0.until = Self.now }.isEmpty)
        #expect(try await found(store, "hello", by: alice) { $0.until = Self.now + 1 }.count == 3)

        // Pages of one follow each other without a gap or a repeat, across the two tiers.
        #expect(
            try await found(store, "hello world", by: alice, pageSize: 1)
                == (try await found(store, "hello world", by: alice)))
        // A term no index serves is read conversation by conversation; the pages still merge
        // them newest first, from the direct chat and the group alike.
        let merged = ["HELLO WORLD in private", "world, then hello", "Hello World from the Crème Brûlée stand"]
        #expect(try await found(store, "lo", by: alice) == merged)
        #expect(try await found(store, "lo", by: alice, pageSize: 1) == merged)
        #expect(try await found(store, "lo", by: alice) { $0.conversationId = group } == Array(merged.dropFirst()))
    }

    /// The index follows the history: an edit or recall changes what is found in the same
    /// transaction; a message deleted for oneself, a cleared history, and what was sent after
    /// one left are not found by that user, while the others still find them.
    @Test(arguments: StoreBackend.available)
    func searchFindsOnlyWhatTheSearcherMayStillRead(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "cyd")
        let (alice, bob, cyd) = (users[0], users[1], users[2])
        let group = try await store.createGroup(name: "g", ownerId: alice, memberIds: [bob, cyd], at: Self.now).id
        var messages: [Message] = []
        for (index, words) in ["the first apple", "the second apple", "the third apple", "a pear"].enumerated() {
            messages.append(
                try await store.appendMessage(text(words, to: .conversation(group), from: bob, id: "m\(index)"))
                    .message)
        }
        let windows = MessageWindows(recallMs: 10_000_000, editMs: 10_000_000)
        _ = try await store.changeMessage(
            messages[3].id, .edit(text: "a banana now"), by: bob, windows: windows, at: Self.now + 1)
        #expect(try await found(store, "pear", by: alice).isEmpty, "the edit replaced the text")
        #expect(try await found(store, "banana", by: alice) == ["a banana now"])
        _ = try await store.changeMessage(messages[2].id, .recall, by: bob, windows: windows, at: Self.now + 2)
        #expect(try await found(store, "third", by: alice).isEmpty, "recalled")
        _ = try await store.deleteMessages([messages[1].seq], in: group, for: alice, at: Self.now + 3)
        #expect(try await found(store, "apple", by: alice) == ["the first apple"], "deleted for alice")
        #expect(try await found(store, "apple", by: bob) == ["the second apple", "the first apple"])
        _ = try await store.updateSettings(
            UpdateSettingsRequest(clearUpToSeq: messages[0].seq), of: group, for: bob, at: Self.now + 4)
        #expect(try await found(store, "apple", by: bob) == ["the second apple"], "bob cleared the first")

        _ = try await store.changeGroup(group, .removeMember(cyd), by: alice, at: Self.now + 5)
        _ = try await store.appendMessage(
            text("apple pie after cyd left", to: .conversation(group), from: bob, id: "late"))
        #expect(
            try await found(store, "apple", by: cyd) == ["the second apple", "the first apple"],
            "a former member finds what was sent while they were in, not after")
        #expect(try await found(store, "apple", by: alice).first == "apple pie after cyd left")
    }

    /// Messages stored before the index existed (an upgraded server) are indexed newest first,
    /// a batch at a time, from where the last batch stopped; a recalled one stays out.
    @Test(arguments: StoreBackend.available)
    func theBacklogIsIndexedNewestFirstInBatches(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        #expect(try await store.indexSearchBacklog(limit: 10) == 0, "a new store has no backlog")
        let users = try await makeUsers(store, "alice", "bob")
        let group = try await store.createGroup(name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now).id
        var ids: [MessageID] = []
        for index in 1...5 {
            ids.append(
                try await store.appendMessage(
                    text("old note \(index)", to: .conversation(group), from: users[0], id: "m\(index)")
                ).message.id)
        }
        try await backend.forgetSearchIndex(store)
        #expect(try await found(store, "note", by: users[1]).isEmpty)
        _ = try await store.changeMessage(
            ids[4], .recall, by: users[0], windows: MessageWindows(recallMs: 10_000_000), at: Self.now + 1)
        #expect(try await store.indexSearchBacklog(limit: 2) == 2)
        #expect(try await found(store, "note", by: users[1]) == ["old note 4"], "the newest two; the fifth is recalled")
        _ = try await store.appendMessage(text("new note", to: .conversation(group), from: users[0], id: "new"))
        var batches = 0
        while try await store.indexSearchBacklog(limit: 2) > 0 { batches += 1 }
        #expect(batches >= 2, "notes 3 to 1, and the group's notices")
        #expect(
            try await found(store, "note", by: users[1])
                == ["new note", "old note 4", "old note 3", "old note 2", "old note 1"])
    }
}

/// The storage contract of finding groups by name and by members' names.
extension StoreContractTests {
    func user(_ store: any ParleyStore, _ username: String, nickname: String) async throws -> UserID {
        try await store.createUser(
            NewUser(
                username: username, email: nil, phone: nil, passwordHash: "h", nickname: nickname, createdAt: Self.now)
        ).id
    }

    @Test(arguments: StoreBackend.available)
    func groupMembersAreFoundByFoldedNicknameOrUsernameInTheSearchersGroupsOnly(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = try await user(store, "alice", nickname: "Alice")
        let bob = try await user(store, "bob_smith", nickname: "张伟")
        let carol = try await user(store, "carol", nickname: "José Álvarez")
        let dave = try await user(store, "dave", nickname: "张三")
        let team = try await store.createGroup(name: "北京团队", ownerId: alice, memberIds: [bob, carol], at: Self.now).id
        _ = try await store.createGroup(name: "张家", ownerId: dave, memberIds: [carol], at: Self.now)
        _ = try await store.openDirectConversation(between: alice, and: dave, at: Self.now)
        func members(_ text: String, of searcher: UserID = alice, limit: Int = 100) async throws -> [String] {
            try await store.groupMembers(of: searcher, matching: try SearchText.terms(of: text), limit: limit)
                .map { "\($0.conversationId == team ? "team" : "other"):\($0.user.username)" }
        }

        #expect(try await members("张") == ["team:bob_smith"], "not dave: a direct chat is not a group")
        #expect(try await members("JOSE alv") == ["team:carol"], "folded, every term")
        #expect(try await members("SMITH") == ["team:bob_smith"], "by username")
        #expect(try await members("alice").isEmpty, "never the searcher")
        #expect(try await members("a", limit: 1).count == 1)
        #expect(try await members("%").isEmpty, "LIKE's wildcards are plain characters")
        #expect(try await members("张", of: carol) == ["team:bob_smith", "other:dave"], "by group, then member")

        _ = try await store.updateProfile(userId: bob, ProfileUpdate(nickname: "Crème"), at: Self.now + 1)
        #expect(try await members("creme") == ["team:bob_smith"], "a new nickname is searched as folded")
        #expect(try await members("张").isEmpty)

        _ = try await store.changeGroup(team, .removeMember(carol), by: alice, at: Self.now + 2)
        #expect(try await members("jose").isEmpty, "a removed member is no longer in the group")
        #expect(try await members("creme", of: carol).isEmpty, "nor does she find its members")

        let names = try await store.groupNames(of: carol).map(\.name)
        #expect(names == ["张家"])
        #expect(try await store.groupNames(of: alice) == [GroupName(id: team, name: "北京团队", memberCount: 2)])
    }
}

extension StoreContractTests {
    @Test(arguments: StoreBackend.available)
    func anUpgradeFoldsTheNicknamesStoredBeforeAccentsWereFolded(_ backend: StoreBackend) async throws {
        let old = try await backend.make()
        let searcher = try await user(old, "searcher", nickname: "Searcher")
        let emile = try await user(old, "writer", nickname: "Émile Zola")
        _ = try await old.createGroup(name: "g", ownerId: searcher, memberIds: [emile], at: Self.now)
        let store = try await backend.reopenWithOldNicknameFolding(old)
        let found = try await store.groupMembers(of: searcher, matching: ["emile"], limit: 10)
        #expect(found.map(\.user.id) == [emile], "found without its accent after the upgrade")
        #expect(
            try await store.searchUsers(nickname: "emile zola", for: searcher, offset: 0, limit: 10).map(\.id) == [
                emile
            ])
    }
}
