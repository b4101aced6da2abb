import Foundation
import ParleyCore
import ParleyStore
import ParleyTesting
import Synchronization
import Testing

/// The storage contract: what every backend guarantees to the server.
@Suite struct StoreContractTests {
    static let now: Int64 = 1_800_000_000_000

    func makeUsers(_ store: any ParleyStore, _ names: String...) async throws -> [UserID] {
        var ids: [UserID] = []
        for name in names {
            ids.append(
                try await store.createUser(
                    NewUser(
                        username: name, email: nil, phone: nil, passwordHash: "h", nickname: name, createdAt: Self.now)
                ).id)
        }
        return ids
    }

    func text(_ text: String, to target: MessageTarget, from sender: UserID, id: String) throws -> NewMessage {
        try NewMessage(
            target: target, senderId: sender, clientMsgId: id, kind: .text, content: .object(["text": .string(text)]),
            sentAt: Self.now)
    }

    /// A profile update sets what it gives, keeps what it leaves out and removes an empty
    /// detail; what is stored reads back the same, by id and by username.
    @Test(arguments: StoreBackend.available)
    func profileDetailsAreStoredKeptAndRemoved(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = try await makeUsers(store, "alice")[0]
        let full = try await store.updateProfile(
            userId: alice,
            ProfileUpdate(
                nickname: "爱丽丝", signature: "hi", avatar: "f_1", gender: "other", birthday: "1990-12-31",
                region: "JP-13"),
            at: Self.now)
        #expect(
            full.user
                == User(
                    id: alice, username: "alice", nickname: "爱丽丝", signature: "hi", avatar: "f_1", gender: .other,
                    birthday: "1990-12-31", region: "JP-13", createdAt: Self.now))
        let partly = try await store.updateProfile(
            userId: alice, ProfileUpdate(signature: "", avatar: "", region: ""), at: Self.now)
        #expect(partly.signature.isEmpty && partly.avatar == nil && partly.region == nil)
        #expect(partly.nickname == "爱丽丝" && partly.gender == .other && partly.birthday == "1990-12-31")
        #expect(try await store.user(id: alice) == partly)
        #expect(try await store.user(username: "alice") == partly)
        let nobody = await #expect(throws: ParleyError.self) {
            _ = try await store.updateProfile(userId: UserID(999), ProfileUpdate(nickname: "x"), at: Self.now)
        }
        #expect(nobody?.code == .userNotFound)
        try await store.close()
    }

    /// Nickname search: folded on both sides, exact before prefix before anywhere, each by
    /// id, paged by offset, never the seeker nor someone hidden from it; privacy settings
    /// change one at a time and read back.
    @Test(arguments: StoreBackend.available)
    func nicknameSearchAndPrivacySettings(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "seeker", "a", "b", "c", "d", "e")
        for (user, nickname) in zip(users.dropFirst(), ["Xiao Ｗang", "wang", "Wangwang", "王小明", "WANG"]) {
            _ = try await store.updateProfile(userId: user, ProfileUpdate(nickname: nickname), at: Self.now)
        }
        let hidden = try await store.updatePrivacy(
            userId: users[5], UpdatePrivacyRequest(findByNickname: .nobody), at: Self.now)
        #expect(hidden.privacy == PrivacySettings(findByNickname: .nobody))
        #expect(try await store.user(id: users[5])?.privacy == hidden.privacy)
        func search(_ query: String, offset: Int = 0, limit: Int = 10, as seeker: UserID? = nil) async throws
            -> [String]
        {
            try await store.searchUsers(nickname: query, for: seeker ?? users[0], offset: offset, limit: limit)
                .map(\.nickname)
        }
        #expect(try await search("WANG") == ["wang", "Wangwang", "Xiao Ｗang"])
        #expect(try await search("wang", offset: 1, limit: 1) == ["Wangwang"])
        #expect(try await search("小明") == ["王小明"])
        #expect(try await search("wang", as: users[2]) == ["Wangwang", "Xiao Ｗang"])
        #expect(try await search("zhang").isEmpty)
        var later = try #require(try await store.user(id: users[1]))
        later.privacy.findByEmail = "contacts"
        #expect(
            !later.isFound(by: LoginKey(email: "a@example.com"), for: users[0]),
            "a setting this version does not know hides the user")
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func usernamesEmailsAndPhonesAreUniqueAndFindable(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = try await store.createUser(
            NewUser(
                username: "Alice", email: "Alice@Example.com", phone: "+491511", passwordHash: "h", nickname: "A",
                createdAt: Self.now))
        for (user, expected) in [
            (
                NewUser(
                    username: "alice", email: nil, phone: nil, passwordHash: "h", nickname: "x", createdAt: Self.now),
                ParleyError.usernameTaken()
            ),
            (
                NewUser(
                    username: "other", email: "alice@example.COM", phone: nil, passwordHash: "h", nickname: "x",
                    createdAt: Self.now), .emailTaken()
            ),
            (
                NewUser(
                    username: "third", email: nil, phone: "+491511", passwordHash: "h", nickname: "x",
                    createdAt: Self.now), .phoneTaken()
            ),
        ] {
            let error = await #expect(throws: ParleyError.self) { _ = try await store.createUser(user) }
            #expect(error?.code == expected.code)
            #expect(error?.message == expected.message, "both backends word it the same")
        }
        for login in ["ALICE", "alice@example.com", "+491511"] {
            #expect(try await store.findUser(login: login)?.id == alice.id, "\(login)")
        }
        #expect(try await store.findUser(login: "nobody") == nil)
        #expect(try await store.user(username: "aLiCe")?.username == "Alice")
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func sessionsExpireRotateOnceAndRevokeWithANotification(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let revoked = try await RevocationLog(store, on: backend)
        let (user) = try await makeUsers(store, "alice")[0]
        let tokens = SessionTokens(
            accessTokenHash: "a1", accessExpiresAt: Self.now + 1000, refreshTokenHash: "r1",
            refreshExpiresAt: Self.now + 5000)
        let session = try await store.createSession(
            NewSession(userId: user, device: "phone", ip: "10.0.0.1", tokens: tokens, createdAt: Self.now))
        #expect(try await store.session(accessTokenHash: "a1", at: Self.now + 999)?.id == session.id)
        #expect(try await store.session(accessTokenHash: "a1", at: Self.now + 1000) == nil, "expired")

        let next = SessionTokens(
            accessTokenHash: "a2", accessExpiresAt: Self.now + 9000, refreshTokenHash: "r2",
            refreshExpiresAt: Self.now + 9000)
        #expect(try await store.rotateTokens(refreshTokenHash: "r1", to: next, at: Self.now + 10)?.id == session.id)
        #expect(try await store.session(accessTokenHash: "a1", at: Self.now) == nil)
        #expect(try await store.session(accessTokenHash: "a2", at: Self.now + 100)?.device == "phone")
        #expect(try await store.rotateTokens(refreshTokenHash: "unknown", to: next, at: Self.now + 20) == nil)
        #expect(
            try await store.session(accessTokenHash: "a2", at: Self.now + 100) != nil,
            "an unknown token revokes nothing")

        #expect(try await store.revokeSession(session.id, of: user, at: Self.now + 200))
        #expect(try await !store.revokeSession(session.id, of: user, at: Self.now + 300), "already revoked")
        #expect(try await store.session(accessTokenHash: "a2", at: Self.now + 400) == nil)
        #expect(try await store.sessions(of: user).first?.revokedAt == Self.now + 200)
        #expect(try await revoked.afterTheFirst() == [session.id])
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func aSessionKeepsItsLoginInTheSecurityLogWithIt(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob")
        let tokens = SessionTokens(
            accessTokenHash: "a1", accessExpiresAt: Self.now + 1000, refreshTokenHash: "r1",
            refreshExpiresAt: Self.now + 5000)
        _ = try await store.createSession(
            NewSession(userId: users[0], device: "phone", ip: "10.0.0.1", tokens: tokens, createdAt: Self.now))
        #expect(
            try await store.securityEvents(of: users[0], limit: 10)
                == [SecurityEvent(kind: .login, at: Self.now, device: "phone", ip: "10.0.0.1")])
        #expect(try await store.securityEvents(of: users[1], limit: 10).isEmpty)
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func presentingARotatedRefreshTokenAgainRevokesItsSession(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let revoked = try await RevocationLog(store, on: backend)
        let users = try await makeUsers(store, "alice", "bob")
        func tokens(_ name: String) -> SessionTokens {
            SessionTokens(
                accessTokenHash: "a-\(name)", accessExpiresAt: Self.now + 9000, refreshTokenHash: "r-\(name)",
                refreshExpiresAt: Self.now + 9000)
        }
        let stolen = try await store.createSession(
            NewSession(userId: users[0], device: "phone", ip: "10.0.0.1", tokens: tokens("1"), createdAt: Self.now))
        let other = try await store.createSession(
            NewSession(userId: users[1], device: "pc", ip: "10.0.0.2", tokens: tokens("b"), createdAt: Self.now))
        #expect(
            try await store.rotateTokens(refreshTokenHash: "r-1", to: tokens("2"), at: Self.now + 10)?.id == stolen.id)
        #expect(
            try await store.rotateTokens(refreshTokenHash: "r-2", to: tokens("3"), at: Self.now + 20)?.id == stolen.id)
        #expect(
            try await store.rotateTokens(refreshTokenHash: "r-1", to: tokens("4"), at: Self.now + 30) == nil,
            "spent two rotations ago")
        #expect(
            try await store.session(accessTokenHash: "a-3", at: Self.now + 40) == nil,
            "the live tokens died with the session")
        #expect(try await store.rotateTokens(refreshTokenHash: "r-3", to: tokens("5"), at: Self.now + 50) == nil)
        #expect(try await store.sessions(of: users[0]).first?.revokedAt == Self.now + 30)
        #expect(
            try await store.session(accessTokenHash: "a-b", at: Self.now + 60)?.id == other.id,
            "other sessions are untouched")
        #expect(try await revoked.afterTheFirst() == [stolen.id])
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func conversationListsPageByLastActivity(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = try await makeUsers(store, "alice")[0]
        var groups: [ConversationID] = []
        for index in 0..<5 {
            // Pairs share a last activity, so the id breaks ties, also across a page boundary.
            groups.append(
                try await store.createGroup(
                    name: "g\(index)", ownerId: alice, memberIds: [], at: Self.now + Int64(index / 2)
                ).id)
        }
        var listed: [ConversationID] = []
        var cursor: ConversationListCursor?
        while true {
            let page = try await store.conversations(of: alice, after: cursor, limit: 2)
            listed += page.map(\.id)
            guard let last = page.last, page.count == 2 else { break }
            cursor = ConversationListCursor(after: last)
        }
        #expect(listed == groups.reversed())
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func concurrentAppendsGetDenseSeqsPerConversation(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "u1", "u2", "u3")
        var conversations: [ConversationID] = []
        for index in 0..<3 {
            conversations.append(
                try await store.createGroup(name: "g\(index)", ownerId: users[0], memberIds: users, at: Self.now).id)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for conversation in conversations {
                for number in 0..<60 {
                    group.addTask {
                        let sender = users[number % users.count]
                        _ = try await store.appendMessage(
                            self.text(
                                "\(number)", to: .conversation(conversation), from: sender,
                                id: "\(conversation)-\(number)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        for conversation in conversations {
            let page = try await store.history(
                of: conversation, for: users[0], query: HistoryQuery(after: 0, limit: 200))
            #expect(page.messages.map(\.seq) == Array(1...60))
            #expect(Set(page.messages.map(\.clientMsgId)).count == 60)
        }
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func aRejectedAppendAmongConcurrentOnesFailsAloneAndLeavesNoHole(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "eve")
        let conversation = try await store.createGroup(
            name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now
        ).id
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for number in 0..<60 {
                group.addTask {
                    let sender = number % 4 == 0 ? users[2] : users[number % 2]
                    do {
                        _ = try await store.appendMessage(
                            self.text("\(number)", to: .conversation(conversation), from: sender, id: "x\(number)"))
                        return true
                    } catch let error as ParleyError where error.code == .notAMember {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { !$0 }.count == 15)
        let page = try await store.history(of: conversation, for: users[0], query: HistoryQuery(after: 0, limit: 200))
        #expect(page.messages.map(\.seq) == Array(1...45))
        #expect(!page.messages.contains { $0.senderId == users[2] })
        try await store.close()
    }

    /// Sends and read and delivery marks at once (on SQLite they share transactions): every
    /// send is stored with dense seqs, a non-member's marks are refused alone, and each
    /// member's watermarks end at the highest seq they marked, never below.
    @Test(arguments: StoreBackend.available)
    func sendsAndMarksAtOnceEachCommitAndAMarkRefusedFailsAlone(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "eve")
        let conversation = try await store.createGroup(
            name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now
        ).id
        for number in 1...10 {
            _ = try await store.appendMessage(
                text("\(number)", to: .conversation(conversation), from: users[0], id: "b\(number)"))
        }
        let refused = try await withThrowingTaskGroup(of: Int.self) { group in
            for number in 0..<40 {
                group.addTask {
                    do {
                        switch number % 4 {
                        case 0:
                            _ = try await store.appendMessage(
                                self.text(
                                    "\(number)", to: .conversation(conversation), from: users[0], id: "s\(number)"))
                        case 1:
                            _ = try await store.markDelivered(conversation, by: users[1], upTo: Int64(number % 10 + 1))
                        case 2:
                            _ = try await store.markRead(
                                conversation, by: users[1], upTo: Int64(number % 9 + 1), at: Self.now)
                        default: _ = try await store.markRead(conversation, by: users[2], upTo: 1, at: Self.now)
                        }
                        return 0
                    } catch let error as ParleyError where error.code == .notAMember {
                        return 1
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(refused == 10, "eve's marks, and only hers")
        let page = try await store.history(of: conversation, for: users[0], query: HistoryQuery(after: 0, limit: 200))
        #expect(page.messages.map(\.seq) == Array(1...20))
        let bob = try await store.receipts(of: conversation, for: users[0]).members.first { $0.userId == users[1] }
        #expect(bob?.readSeq == 9, "the highest read mark: 38 % 9 + 1")
        #expect(bob?.deliveredSeq == 10, "the highest delivery mark: 9 % 10 + 1")
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func appendIsIdempotentPerSenderAndClientMessageID(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob")
        let conversation = try await store.createGroup(
            name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now
        ).id
        let first = try await store.appendMessage(
            text("hi", to: .conversation(conversation), from: users[0], id: "same"))
        let retry = try await store.appendMessage(
            text("hi again?", to: .conversation(conversation), from: users[0], id: "same"))
        let otherSender = try await store.appendMessage(
            text("hi", to: .conversation(conversation), from: users[1], id: "same"))
        #expect(!first.duplicate)
        #expect(retry.duplicate && retry.message == first.message)
        #expect(!otherSender.duplicate && otherSender.message.seq == 2)
        let direct = try await store.appendMessage(text("dm", to: .directWith(users[1]), from: users[0], id: "dm-1"))
        let directRetry = try await store.appendMessage(
            text("dm", to: .directWith(users[1]), from: users[0], id: "dm-1"))
        #expect(directRetry.duplicate && directRetry.message == direct.message)
        await #expect(
            throws: ParleyError(
                .clientMessageIDReused,
                "clientMsgId 'dm-1' was already used for a message in conversation \(direct.message.conversationId).")
        ) {
            _ = try await store.appendMessage(
                self.text("x", to: .conversation(conversation), from: users[0], id: "dm-1"))
        }
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func onlyMembersAppendReadOrMarkRead(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "eve")
        let conversation = try await store.createGroup(
            name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now
        ).id
        let notMember = ParleyError(.notAMember, "You are not a member of conversation \(conversation).")
        await #expect(throws: notMember) {
            _ = try await store.appendMessage(self.text("x", to: .conversation(conversation), from: users[2], id: "e"))
        }
        await #expect(throws: notMember) {
            _ = try await store.history(of: conversation, for: users[2], query: HistoryQuery())
        }
        await #expect(throws: notMember) {
            _ = try await store.markRead(conversation, by: users[2], upTo: 1, at: Self.now)
        }
        await #expect(throws: notMember) { _ = try await store.conversation(conversation, for: users[2]) }
        await #expect(throws: notMember) {
            _ = try await store.addMembers([users[2]], to: conversation, by: users[2], at: Self.now)
        }
        await #expect(throws: ParleyError.self) { _ = try await store.conversation(ConversationID(999), for: users[0]) }
        #expect(try await store.conversations(of: users[2], after: nil, limit: 100).isEmpty)
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func thereIsOneDirectConversationPerPairWhoeverOpensIt(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob")
        let ids = try await withThrowingTaskGroup(of: ConversationID.self) { group in
            for index in 0..<10 {
                group.addTask {
                    let (me, peer) = index.isMultiple(of: 2) ? (users[0], users[1]) : (users[1], users[0])
                    return try await store.openDirectConversation(between: me, and: peer, at: Self.now).id
                }
            }
            return try await group.reduce(into: Set<ConversationID>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        let summary = try await store.conversation(ids.first!, for: users[0]).conversation
        #expect(summary.kind == .direct && summary.peerId == users[1] && summary.memberCount == 2)
        await #expect(throws: ParleyError.self) {
            _ = try await store.openDirectConversation(between: users[0], and: users[0], at: Self.now)
        }
        await #expect(throws: ParleyError.self) {
            _ = try await store.openDirectConversation(between: users[0], and: UserID(404), at: Self.now)
        }
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func changesArePublishedInCommitOrder(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let (fanOut, stopListening) = try await backend.listen(store)
        defer { stopListening() }
        let published = Mutex<[Int64]>([])
        fanOut.subscribe { item in
            if case .stored(.message(let message, let recipients, _)) = item {
                precondition(recipients.count == 2)
                published.withLock { $0.append(message.seq) }
            }
        }
        let users = try await makeUsers(store, "alice", "bob")
        let conversation = try await store.createGroup(
            name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now
        ).id
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<100 {
                group.addTask {
                    _ = try await store.appendMessage(
                        self.text(
                            "\(number)", to: .conversation(conversation), from: users[number % 2], id: "m\(number)"))
                }
            }
            try await group.waitForAll()
        }
        // A backend may publish after the write returned (PostgreSQL hears its own NOTIFY);
        // what is promised is every change, once, in commit order.
        let deadline = ContinuousClock.now + .seconds(30)
        while published.withLock({ $0.count }) < 100, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(published.withLock { $0 } == Array(1...100))
        try await store.close()
    }

    /// A first message opens its direct conversation in its own transaction, and the fan-out
    /// publishes both members' `conversation.added` before the message: a node never hands a
    /// client a message of a conversation it has not been told of. (PostgreSQL's insert sends
    /// the message's NOTIFY itself only when no earlier note of its transaction waits.)
    @Test(arguments: StoreBackend.available)
    func aFirstMessageIsPublishedAfterItsConversationIsAnnounced(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let (fanOut, stopListening) = try await backend.listen(store)
        defer { stopListening() }
        let published = Mutex<[String]>([])
        fanOut.subscribe { item in
            switch item {
            case .stored(.events(let events)):
                let added = events.values.joined().filter {
                    (try? JSONText.decode(UserEvent.self, from: $0))?.type == .conversationAdded
                }
                published.withLock { $0 += added.map { _ in "conversation.added" } }
            case .stored(.message(let message, _, _)):
                published.withLock { $0.append("message \(message.clientMsgId)") }
            default: break
            }
        }
        let users = try await makeUsers(store, "alice", "bob")
        _ = try await store.appendMessage(text("hello", to: .directWith(users[1]), from: users[0], id: "first"))
        _ = try await store.appendMessage(text("again", to: .directWith(users[1]), from: users[0], id: "second"))
        _ = try await comesTrue { published.withLock { $0.contains("message second") } }
        #expect(
            published.withLock { $0 } == [
                "conversation.added", "conversation.added", "message first", "message second",
            ])
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func readWatermarkMovesForwardOnlyAndDrivesUnreadCounts(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob")
        let conversation = try await store.createGroup(
            name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now
        ).id
        for number in 1...4 {
            _ = try await store.appendMessage(
                text("\(number)", to: .conversation(conversation), from: users[0], id: "m\(number)"))
        }
        #expect(try await store.conversation(conversation, for: users[1]).conversation.unreadCount == 4)
        #expect(
            try await store.conversation(conversation, for: users[0]).conversation.unreadCount == 0, "sending reads")
        #expect(try await store.markRead(conversation, by: users[1], upTo: 2, at: Self.now)?.seq == 2)
        #expect(try await store.markRead(conversation, by: users[1], upTo: 1, at: Self.now) == nil)
        #expect(try await store.markRead(conversation, by: users[1], upTo: 2, at: Self.now) == nil)
        #expect(try await store.markRead(conversation, by: users[1], upTo: 50, at: Self.now)?.seq == 4)
        #expect(try await store.conversation(conversation, for: users[1]).conversation.unreadCount == 0)
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func syncReturnsExactlyTheChangesAfterTheCursorInPages(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "carol")
        let snapshot = try await store.sync(userId: users[1], since: nil, limit: 10)
        #expect(snapshot.conversations.isEmpty && snapshot.events.isEmpty && !snapshot.hasMore)

        var conversations: [ConversationID] = []
        for index in 0..<5 {
            conversations.append(
                try await store.createGroup(name: "g\(index)", ownerId: users[0], memberIds: [users[1]], at: Self.now)
                    .id)
        }
        _ = try await store.appendMessage(text("x", to: .conversation(conversations[1]), from: users[0], id: "x"))
        _ = try await store.addMembers([users[2]], to: conversations[3], by: users[0], at: Self.now)

        var cursor = snapshot.cursor
        var seenConversations: [ConversationID] = []
        var events: [UserEvent] = []
        repeat {
            let page = try await store.sync(userId: users[1], since: cursor, limit: 2)
            #expect(page.conversations.count <= 2 && page.events.count <= 2)
            seenConversations += page.conversations.map(\.id)
            events += page.events
            cursor = page.cursor
            if !page.hasMore { break }
        } while true
        #expect(Set(seenConversations) == Set(conversations))
        #expect(events.map(\.seq) == Array(1...5), "dense, in order, none lost across pages")
        #expect(
            events.map(\.type) == Array(repeating: .conversationAdded, count: 5),
            "the members already in a group learn of a join from its notice, not from an event each")

        let quiet = try await store.sync(userId: users[1], since: cursor, limit: 2)
        #expect(quiet.conversations.isEmpty && quiet.events.isEmpty)
        _ = try await store.markRead(conversations[1], by: users[1], upTo: 1, at: Self.now)
        let afterRead = try await store.sync(userId: users[1], since: cursor, limit: 10)
        #expect(afterRead.conversations.map(\.id) == [conversations[1]])
        #expect(afterRead.conversations.first?.unreadCount == 0)
        #expect(afterRead.events.map(\.type) == [.readMoved])
        let aliceView = try await store.sync(
            userId: users[0], since: SyncCursor(eventSeq: 6, version: cursor.version), limit: 10)
        #expect(
            aliceView.conversations.map(\.id) == [conversations[1]], "another member's read reaches alice's next sync")
        #expect(aliceView.conversations.first?.othersReadSeq == 1)
        #expect(aliceView.events.isEmpty)
        try await store.close()
    }

    /// An announcement's event is encoded once and copied per member with the member's seq
    /// (`UserEventTemplate`); a name holding the placeholder's digits takes the path that
    /// encodes each copy whole, and both paths store the same events.
    @Test(arguments: StoreBackend.available)
    func announcementsReachEveryMemberWithTheirOwnSeqWhateverTheGroupIsCalled(_ backend: StoreBackend)
        async throws
    {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "carol")
        let group = try await store.createGroup(
            name: "g", ownerId: users[0], memberIds: [users[1], users[2]], at: Self.now
        ).id
        var cursors: [SyncCursor] = []
        for user in users { cursors.append(try await store.sync(userId: user, since: nil, limit: 100).cursor) }
        for (index, name) in ["plain", "\(Int64.min)", "\(Int64.min) and \(Int64.min)"].enumerated() {
            _ = try await store.changeGroup(group, .updateProfile(.init(name: name)), by: users[0], at: Self.now + 1)
            for (user, cursor) in zip(users, cursors) {
                let events = try await store.sync(userId: user, since: cursor, limit: 100).events
                #expect(events.count == index + 1)
                #expect(zip(events, events.dropFirst()).allSatisfy { $1.seq == $0.seq + 1 }, "dense")
                let expected = ConversationUpdated(
                    conversationId: group, group: GroupProfile(name: name, ownerId: users[0]), updatedBy: users[0])
                #expect(events.last?.body == expected.body, "\(name)")
            }
        }
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func renamingAGroupTellsEveryMemberOnceAndOnlyManagersRenameOnlyGroups(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "eve")
        let group = try await store.createGroup(name: "old", ownerId: users[0], memberIds: [users[1]], at: Self.now).id
        let cursor = try await store.sync(userId: users[0], since: nil, limit: 100).cursor
        let rename = GroupChange.updateProfile(.init(name: "new"))

        _ = try await store.changeGroup(group, rename, by: users[0], at: Self.now + 1)
        _ = try await store.changeGroup(group, rename, by: users[0], at: Self.now + 2)

        let changes = try await store.sync(userId: users[0], since: cursor, limit: 100)
        #expect(changes.conversations.map(\.name) == ["new"])
        #expect(changes.conversations.first?.group?.name == "new")
        let expected = ConversationUpdated(
            conversationId: group, group: GroupProfile(name: "new", ownerId: users[0]), updatedBy: users[0])
        #expect(changes.events.map(\.body) == [expected.body], "once: the same name again changes nothing")
        #expect(changes.events.first?.at == Self.now + 1)
        let bobsEvents = try await store.sync(userId: users[1], since: cursor, limit: 100).events
        #expect(bobsEvents.map(\.body) == [expected.body])
        let history = try await store.history(of: group, for: users[1], query: HistoryQuery(after: 0))
        #expect(
            history.messages.map(\.typedContent) == [.system(SystemNotice(.groupRenamed, by: users[0], text: "new"))],
            "the rename is a system message in the conversation's seq")

        let member = await #expect(throws: ParleyError.self) {
            _ = try await store.changeGroup(group, .updateProfile(.init(name: "mine")), by: users[1], at: Self.now)
        }
        #expect(member?.code == .forbidden)
        let outsider = await #expect(throws: ParleyError.self) {
            _ = try await store.changeGroup(group, .updateProfile(.init(name: "mine")), by: users[2], at: Self.now)
        }
        #expect(outsider?.code == .notAMember)
        let direct = try await store.openDirectConversation(between: users[0], and: users[1], at: Self.now).id
        let notAGroup = await #expect(throws: ParleyError.self) {
            _ = try await store.changeGroup(direct, .updateProfile(.init(name: "pair")), by: users[0], at: Self.now)
        }
        #expect(notAGroup?.code == .forbidden)
        #expect(try await store.conversation(group, for: users[0]).conversation.name == "new")
        try await store.close()
    }

    /// A missing user is named before the group's size: the first mistake is the one reported.
    @Test(arguments: StoreBackend.available)
    func aMissingMemberIsReportedBeforeAGroupTooLarge(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob")
        let tooMany = (1...Int64(Limits.maxGroupMembers + 1)).map { UserID($0 + users[1].rawValue) }
        let error = await #expect(throws: ParleyError.self) {
            _ = try await store.createGroup(name: "big", ownerId: users[0], memberIds: tooMany, at: Self.now)
        }
        #expect(error?.code == .userNotFound)
        let group = try await store.createGroup(name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now).id
        let adding = await #expect(throws: ParleyError.self) {
            _ = try await store.addMembers(tooMany, to: group, by: users[0], at: Self.now)
        }
        #expect(adding?.code == .userNotFound)
        try await store.close()
    }

    /// A group change's outcome names whom it made members, as stored, and the seq of the
    /// notice that records it: for a direct addition and for a link; an addition of members
    /// only names nobody and no notice.
    @Test(arguments: StoreBackend.available)
    func anAdditionsOutcomeNamesWhomItAddedAndTheSeqOfItsNotice(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "cyd", "dan")
        let group = try await store.createGroup(name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now).id
        let added = try await store.changeGroup(
            group, .addMembers([users[1], users[2]]), by: users[0], at: Self.now + 1)
        #expect(added.added == [Member(userId: users[2], role: .member, readSeq: 0, joinedAt: Self.now + 1)])
        let detail = try await store.conversation(group, for: users[0])
        #expect(detail.members.first { $0.userId == users[2] } == added.added.first, "as stored")
        let page = try await store.history(of: group, for: users[0], query: HistoryQuery(after: 0, limit: 200))
        #expect(added.noticeSeq == page.messages.last?.seq)
        #expect(
            page.messages.last?.typedContent == .system(SystemNotice(.memberJoined, by: users[0], about: [users[2]])))

        let again = try await store.changeGroup(group, .addMembers([users[2]]), by: users[0], at: Self.now + 2)
        #expect(again.added.isEmpty && again.noticeSeq == nil)

        _ = try await store.changeGroup(
            group, .createLink(code: "contract", expiresAt: nil, maxUses: nil), by: users[0], at: Self.now)
        let joined = try await store.changeGroup(
            group, .useLink(code: "contract", message: ""), by: users[3], at: Self.now + 3)
        #expect(joined.added == [Member(userId: users[3], role: .member, readSeq: 0, joinedAt: Self.now + 3)])
        #expect(joined.noticeSeq == (added.noticeSeq ?? 0) + 1, "a link writes no notice; the join does")
        try await store.close()
    }

    /// Member lists are cached by `members_version`: each send after a change to the members
    /// reaches exactly the members of that moment, a notice reaches those it removes, and a
    /// removed member gets nothing after it (and reads the history up to it).
    @Test(arguments: StoreBackend.available)
    func sendsReachExactlyTheMembersOfTheirMomentAcrossMembershipChanges(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "cyd")
        let (fanOut, stop) = try await backend.listen(store)
        defer { stop() }
        let heard = Mutex<[Int64: Set<UserID>]>([:])
        fanOut.subscribe { item in
            if case .stored(.message(let message, let recipients, _)) = item {
                heard.withLock { $0[message.seq] = Set(recipients) }
            }
        }
        let group = try await store.createGroup(name: "g", ownerId: users[0], memberIds: [users[1]], at: Self.now).id
        func send(_ id: String) async throws {
            _ = try await store.appendMessage(self.text(id, to: .conversation(group), from: users[0], id: id))
        }
        try await send("1")
        try await send("2")
        try await store.addMembers([users[2]], to: group, by: users[0], at: Self.now)
        try await send("4")
        _ = try await store.changeGroup(group, .removeMember(users[1]), by: users[0], at: Self.now)
        try await send("6")

        let deadline = ContinuousClock.now + .seconds(30)
        while heard.withLock({ $0.count }) < 6, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let (alice, bob, cyd) = (users[0], users[1], users[2])
        #expect(
            heard.withLock { $0 } == [
                1: [alice, bob], 2: [alice, bob], 3: [alice, bob, cyd], 4: [alice, bob, cyd], 5: [alice, bob, cyd],
                6: [alice, cyd],
            ])
        let bobsView = try await store.history(of: group, for: bob, query: HistoryQuery(after: 0))
        #expect(bobsView.messages.map(\.seq) == [1, 2, 3, 4, 5], "a former member reads up to their removal")
        let outsider = try await makeUsers(store, "eve")[0]
        let eves = await #expect(throws: ParleyError.self) {
            _ = try await store.history(of: group, for: outsider, query: HistoryQuery())
        }
        #expect(eves?.code == .notAMember)
        #expect(try await store.conversation(group, for: alice).conversation.memberCount == 2)
        try await store.close()
    }

    /// Signals (typing, presence) travel between nodes on the fan-out and never touch a table.
    @Test(arguments: StoreBackend.available)
    func signalsReachEveryNodeAndAreNeverStored(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob")
        let before = try await store.sync(userId: users[1], since: nil, limit: 100).cursor
        let (sending, stopSending) = try await backend.listen(store)
        let (receiving, stopReceiving) = try await backend.listen(store)
        defer {
            stopSending()
            stopReceiving()
        }
        let heard = Mutex<[String: [Signal]]>([:])
        for (name, fanOut) in [("sending", sending), ("receiving", receiving)] {
            fanOut.subscribe { item in
                if case .signal(let signal) = item { heard.withLock { $0[name, default: []].append(signal) } }
            }
        }
        let signal = Signal(type: "typing", recipients: [users[1]], payload: .object(["from": .string("alice")]))
        try await sending.send(signal)
        let deadline = ContinuousClock.now + .seconds(30)
        while heard.withLock({ $0.values.map(\.count).reduce(0, +) }) < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(heard.withLock { $0 } == ["sending": [signal], "receiving": [signal]])

        let after = try await store.sync(userId: users[1], since: before, limit: 100)
        #expect(after.events.isEmpty && after.conversations.isEmpty)
        #expect(after.cursor == before, "no event seq or change version moved")

        // A signal to a full group (more recipients than one NOTIFY holds) reaches them all.
        heard.withLock { $0 = [:] }
        let everyone = (1...Int64(Limits.maxGroupMembers)).map { UserID($0 * 1_000_000_007) }
        try await sending.send(Signal(type: "typing", recipients: everyone, payload: .object(["n": 1])))
        func recipients(_ node: String) -> Set<UserID> {
            heard.withLock { Set(($0[node] ?? []).flatMap(\.recipients)) }
        }
        while min(recipients("sending").count, recipients("receiving").count) < everyone.count,
            ContinuousClock.now < deadline + .seconds(30)
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(recipients("sending") == Set(everyone) && recipients("receiving") == Set(everyone))

        let tooLarge = Signal(
            type: "typing", recipients: [users[1]], payload: .string(String(repeating: "x", count: 8_000)))
        let error = await #expect(throws: ParleyError.self) { try await sending.send(tooLarge) }
        #expect(error?.code == .invalidField)
        for type in ["message", "event", "", "Typing!"] {
            let disguised = Signal(type: type, recipients: [users[1]], payload: .null)
            let refused = await #expect(throws: ParleyError.self, "\(type)") { try await sending.send(disguised) }
            #expect(refused?.code == .invalidField)
        }
        try await store.close()
    }

    @Test(arguments: StoreBackend.available)
    func aReplyRacingTheRecallOfItsTargetNeverKeepsTheTargetsText(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob")
        let (alice, bob) = (users[0], users[1])
        let conversation = try await store.createGroup(
            name: "race", ownerId: alice, memberIds: [bob], memberLimit: 10, at: Self.now
        ).id
        for round in 0..<20 {
            let target = try await store.appendMessage(
                try text("secret \(round)", to: .conversation(conversation), from: alice, id: "t\(round)")
            ).message
            let reply = try NewMessage(
                target: .conversation(conversation), senderId: bob, clientMsgId: "r\(round)", kind: .reply,
                content: ["text": "ok", "replyTo": .number(.integer(target.id.rawValue))], sentAt: Self.now,
                replyTo: target.id)
            async let recalled = store.changeMessage(
                target.id, .recall, by: alice, windows: .defaults, at: Self.now)
            async let replied: Result<Message, any Error> = {
                do { return .success(try await store.appendMessage(reply).message) } catch { return .failure(error) }
            }()
            #expect(try await recalled.isRecalled)
            switch await replied {
            case .success:
                let page = try await store.history(
                    of: conversation, for: bob, query: HistoryQuery(after: target.seq, limit: 10))
                let stored = page.messages.first { $0.clientMsgId == "r\(round)" }
                #expect(stored?.quote?.kind == .recalled, "round \(round): the quote follows the recall")
                #expect(stored?.quote?.text == nil)
            case .failure(let error):
                #expect((error as? ParleyError)?.code == .messageRecalled, "round \(round): \(error)")
            }
        }
    }

    /// A block check finds every block on either side among as many ids as a group may be
    /// made with, repeats included, in one statement on each backend.
    @Test(arguments: StoreBackend.available)
    func aBlockCheckFindsBlocksEitherWayAmongTwentyFiveThousandIds(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "carol", "dan")
        let (alice, bob, carol, dan) = (users[0], users[1], users[2], users[3])
        _ = try await store.block(alice, by: bob, at: Self.now)
        _ = try await store.block(carol, by: alice, at: Self.now)
        _ = try await store.block(dan, by: carol, at: Self.now)
        let others = (5...25_000).map { UserID(Int64($0)) } + [carol, bob, dan, bob]
        #expect(try await store.blocked(between: alice, and: others) == [bob, carol], "not carol's block of dan")
        #expect(try await store.blocked(between: alice, and: [dan]).isEmpty)
        #expect(try await store.blocked(between: alice, and: []).isEmpty)
        try await store.close()
    }
}

/// The sessions a store reports revoked on a node's fan-out.
final class RevocationLog: Sendable {
    private let revoked = Mutex<[SessionID]>([])
    private let stopListening: @Sendable () -> Void

    init(_ store: any ParleyStore, on backend: StoreBackend) async throws {
        let (fanOut, stop) = try await backend.listen(store)
        stopListening = stop
        fanOut.subscribe { [weak self] item in
            if case .stored(.sessionRevoked(let id)) = item { self?.revoked.withLock { $0.append(id) } }
        }
    }

    deinit { stopListening() }

    /// What was reported, once the first report has come (the feed is asynchronous); waits
    /// at most 30 s.
    func afterTheFirst() async throws -> [SessionID] {
        let deadline = ContinuousClock.now + .seconds(30)
        while revoked.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return revoked.withLock { $0 }
    }
}

extension ParleyStore {
    /// A group with the default member limit.
    func createGroup(name: String, ownerId: UserID, memberIds: [UserID], at now: Int64) async throws
        -> ConversationSummary
    {
        try await createGroup(
            name: name, ownerId: ownerId, memberIds: memberIds, memberLimit: Limits.maxGroupMembers, at: now)
    }

    func addMembers(_ userIds: [UserID], to id: ConversationID, by actorId: UserID, at now: Int64) async throws {
        _ = try await changeGroup(id, .addMembers(userIds), by: actorId, at: now)
    }
}
