import Foundation
import HTTPTypes
import ParleyCore
import ParleyServer
import ParleyTesting
import Testing

/// Deleting an account: what it asks for, and what happens to the user's messages, groups,
/// contacts and sessions (docs/protocol.md, "Deleting an account").
@Suite struct AccountDeletionTests {
    static func delete(_ api: TestAPI, _ user: TestUser, password: String = "Passw0rd!", code: String? = nil)
        async throws -> TwoFactorTests.Answer
    {
        try await TwoFactorTests.post(
            api, "/v1/me/delete", DeleteAccountRequest(password: password, code: code), token: user.token)
    }

    @Test func messagesStayGroupsPassOnContactsGoAndTheAccountCannotBeUsed() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            let dave = try await api.signUp("dave")
            let erin = try await api.signUp("erin")
            let _: Account = try await api.call(
                .patch, "/v1/me", ProfileUpdate(nickname: "Alice A.", signature: "hi"), token: alice.token)
            let direct = try await api.sendText(to: bob, "hello bob", as: alice).message.conversationId
            // Alice owns a group with an admin (dave) who joined after a member (carol): dave inherits it.
            let owned = try await api.createGroup("Owned", by: alice, with: [carol, dave])
            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(owned)/members/\(dave.id)", UpdateMemberRequest(role: .admin),
                token: alice.token)
            _ = try await api.sendText("in the group", to: owned, as: alice)
            // Another she owns alone is dissolved; one of bob's she just leaves.
            let alone = try await api.createGroup("Alone", by: alice, with: [])
            let bobs = try await api.createGroup("Bob's", by: bob, with: [alice])
            try await api.befriend(alice, carol)
            _ = try await api.request(dave, befriends: alice)
            let alicesRequest = try await api.request(alice, befriends: erin)
            let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(bob.id)", token: alice.token)
            let alicesSocket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)

            // Refusals change nothing.
            let wrong = try await Self.delete(api, alice, password: "Wr0ng-Guess!")
            #expect(wrong.status == 403 && wrong.error?.code == .currentPasswordWrong)
            let (anonymous, _, _) = try await api.raw(.post, "/v1/me/delete", body: #"{"password":"Passw0rd!"}"#)
            #expect(anonymous == 401)
            let extra = try await api.raw(
                .post, "/v1/me/delete", body: #"{"password":"Passw0rd!","why":"x"}"#, token: alice.token)
            #expect(extra.status == 400 && extra.body.contains("unknown_field"))
            #expect(try await api.contacts(of: carol).map(\.user.id) == [alice.id])

            #expect(try await Self.delete(api, alice).status == 204)
            #expect(try await alicesSocket.waitForClose() == 4002, "her socket closes at once")

            // She cannot come back, and nobody finds her.
            let (me, _, _) = try await api.raw(.get, "/v1/me", token: alice.token)
            #expect(me == 401)
            let login = try await TwoFactorTests.post(
                api, "/v1/sessions", LoginRequest(login: "alice", password: "Passw0rd!"))
            #expect(login.status == 401 && login.error?.code == .invalidCredentials)
            let (found, _, _) = try await api.raw(.get, "/v1/users/by-username/alice", token: bob.token)
            #expect(found == 404)
            // Her name is free again; her old account is "Deleted account".
            let newAlice = try await api.signUp("alice")
            #expect(newAlice.id != alice.id)
            let ghost: User = try await api.call(.get, "/v1/users/\(alice.id)", token: bob.token)
            #expect(
                ghost.deleted == true && ghost.nickname == "Deleted account" && ghost.username == "deleted-\(alice.id)")
            #expect(ghost.signature == "" && ghost.avatar == nil)

            // Her messages stay where they were sent; nobody can write to her.
            let history: HistoryPage = try await api.call(
                .get, "/v1/conversations/\(direct)/messages", token: bob.token)
            #expect(history.messages.map { $0.content.objectValue?["text"]?.stringValue } == ["hello bob"])
            #expect(history.messages.first?.senderId == alice.id)
            let toGhost = try await TwoFactorTests.post(
                api, "/v1/messages",
                SendMessageRequest(toUserId: alice.id, clientMsgId: "x1", kind: .text, content: ["text": "hi?"]),
                token: bob.token)
            #expect(toGhost.status == 404 && toGhost.error?.code == .userNotFound)

            // The group she owned is dave's (the admin), with carol; the one she was alone in is dissolved;
            // she left bob's.
            let ownedNow: ConversationDetail = try await api.call(.get, "/v1/conversations/\(owned)", token: dave.token)
            #expect(ownedNow.members.first { $0.role == .owner }?.userId == dave.id)
            #expect(Set(ownedNow.members.map(\.userId)) == [carol.id, dave.id])
            let groupHistory: HistoryPage = try await api.call(
                .get, "/v1/conversations/\(owned)/messages", token: carol.token)
            #expect(groupHistory.messages.contains { $0.senderId == alice.id }, "her group message stays")
            let bobsNow: ConversationDetail = try await api.call(.get, "/v1/conversations/\(bobs)", token: bob.token)
            #expect(bobsNow.members.map(\.userId) == [bob.id])
            _ = alone

            // Contacts: carol lost her friend, dave's request is gone, bob is not blocked by a ghost.
            #expect(try await api.contacts(of: carol).isEmpty)
            let daves: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: dave.token)
            #expect(daves.outgoing.allSatisfy { $0.status != .pending })
            let erins: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: erin.token)
            #expect(erins.incoming.isEmpty, "her request to erin ended with her")
            let late = try await TwoFactorTests.post(
                api, "/v1/friend-requests/\(alicesRequest.id)", AnswerFriendRequest(answer: .accept), token: erin.token)
            #expect(late.status >= 400, "nobody befriends a deleted account")
            #expect(try await api.contacts(of: erin).isEmpty)
            #expect(try await Self.delete(api, alice).status == 401, "her tokens are gone")
        }
    }

    @Test func withTwoFactorLoginOnDeletionAsksForACode() async throws {
        let clock = TestClock(1_800_000_000_000)
        try await withServer(clock: clock.wallClock) { api in
            let erin = try await api.signUp("erin")
            let setup: TwoFactorSetup = try await api.call(.post, "/v1/me/two-factor", token: erin.token)
            let totp = TOTP(secret: try #require(Base32.decode(setup.secret)))
            let _: RecoveryCodes = try await api.call(
                .post, "/v1/me/two-factor/confirm", TwoFactorCodeRequest(code: totp.code(at: clock.now)),
                token: erin.token)
            clock.advance(30_000)
            let missing = try await Self.delete(api, erin)
            #expect(missing.status == 400 && missing.error?.code == .missingField)
            let wrong = try await Self.delete(api, erin, code: TwoFactorTests.other(than: totp.code(at: clock.now)))
            #expect(wrong.status == 400 && wrong.error?.code == .codeInvalid)
            #expect(try await Self.delete(api, erin, code: totp.code(at: clock.now)).status == 204)
        }
    }
}
