import Foundation
import Hummingbird
import ParleyCore
import ParleyTesting
import Testing

/// Friend requests, friends with remarks, blocking and the message privacy setting (issue
/// 11, items 3 to 5), through the HTTP API on the configured backend.
@Suite(.serialized) struct ContactTests {
    @Test func aRequestWaitsMergesWithASecondOneAndAcceptingMakesFriendsWithADirectConversation() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let bobBefore: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)
            let aliceBefore: SyncResponse = try await api.call(.get, "/v1/sync", token: alice.token)

            let first = try await api.request(alice, befriends: bob, "hi, it's Alice")
            #expect(first.status == .pending)
            #expect(first.from.id == alice.id && first.to.id == bob.id && first.message == "hi, it's Alice")
            let second = try await api.request(alice, befriends: bob, "from the team")
            #expect(second.id == first.id, "a second request merges with the pending one")
            #expect(second.message == "from the team" && second.createdAt == first.createdAt)
            let inbox: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: bob.token)
            #expect(inbox.incoming.map(\.id) == [first.id] && inbox.outgoing.isEmpty)
            let sent: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: alice.token)
            #expect(sent.outgoing.map(\.id) == [first.id] && sent.incoming.isEmpty)
            #expect(try await api.contacts(of: alice).isEmpty, "not friends until bob answers")

            let accepted = try await api.answer(first.id, .accept, by: bob)
            #expect(accepted.status == .accepted)
            #expect(try await api.contacts(of: alice).map(\.user.id) == [bob.id])
            #expect(try await api.contacts(of: bob).map(\.user.id) == [alice.id])
            let direct: ConversationDetail = try await api.call(
                .post, "/v1/conversations/direct", OpenDirectRequest(userId: bob.id), token: alice.token)
            let bobList: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)
            #expect(
                bobList.conversations.map(\.id) == [direct.conversation.id],
                "accepting opened their direct conversation")

            let bobEvents = try await api.events(of: bob, since: bobBefore.cursor)
            #expect(
                bobEvents.map(\.type) == [
                    .friendRequestUpdated, .friendRequestUpdated, .friendRequestUpdated, .conversationAdded,
                    .contactUpdated,
                ], "the request, its merge, its acceptance, the conversation and the new friend, once each")
            let aliceEvents = try await api.events(of: alice, since: aliceBefore.cursor)
            #expect(
                aliceEvents.map(\.type) == [
                    .friendRequestUpdated, .friendRequestUpdated, .friendRequestUpdated, .conversationAdded,
                    .contactUpdated,
                ])
            guard case .contactUpdated(let added) = aliceEvents.last?.body else {
                Issue.record("no contact event")
                return
            }
            #expect(added.contact.user.id == bob.id && added.contact.remark == "")

            let again = try await api.failure(.post, "/v1/friend-requests", SendFriendRequest(userId: bob.id), alice)
            #expect(again.status == 409 && again.error.code == .alreadyFriends)
            let closed = try await api.failure(
                .post, "/v1/friend-requests/\(first.id)", AnswerFriendRequest(answer: .reject), bob)
            #expect(closed.status == 409 && closed.error.code == .friendRequestClosed)
        }
    }

    @Test func rejectedAndIgnoredRequestsAndExpiry() async throws {
        let clock = TestClock(Int64(Date().timeIntervalSince1970 * 1000))
        try await withServer(clock: clock.wallClock, configure: { $0.friendRequestTTLMs = 60_000 }) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let request = try await api.request(alice, befriends: bob)
            let aliceBefore: SyncResponse = try await api.call(.get, "/v1/sync", token: alice.token)
            #expect(try await api.answer(request.id, .reject, by: bob).status == .rejected)
            #expect(
                try await api.answer(request.id, .reject, by: bob).status == .rejected, "a retried answer is a no-op")
            let told = try await api.events(of: alice, since: aliceBefore.cursor)
            guard case .friendRequestUpdated(let rejected) = told.first?.body, told.count == 1 else {
                Issue.record("alice was not told once: \(told)")
                return
            }
            #expect(rejected.request.status == .rejected)

            let renewed = try await api.request(alice, befriends: bob, "please")
            #expect(renewed.status == .pending && renewed.id == request.id, "asking again after a refusal is allowed")
            let afterRenewal: SyncResponse = try await api.call(.get, "/v1/sync", token: alice.token)
            let beforeIgnoring: FriendRequestList = try await api.call(
                .get, "/v1/friend-requests", token: alice.token)
            clock.advance(1_000)
            #expect(try await api.answer(request.id, .ignore, by: bob).status == .ignored)
            #expect(try await api.events(of: alice, since: afterRenewal.cursor).isEmpty, "ignoring tells nobody")
            let bobInbox: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: bob.token)
            #expect(bobInbox.incoming.isEmpty, "an ignored request leaves the inbox")
            #expect(bobInbox.ignored.map(\.id) == [request.id], "and waits among the ignored ones")
            let aliceView: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: alice.token)
            #expect(aliceView.outgoing == beforeIgnoring.outgoing, "the sender's view does not move at all")
            #expect(try await api.answer(request.id, .accept, by: bob).status == .accepted, "it can still be accepted")

            let carol = try await api.signUp("carol")
            let lapsing = try await api.request(carol, befriends: bob)
            clock.advance(60_000)
            let lapsed: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: carol.token)
            #expect(lapsed.outgoing.isEmpty, "a request lapses after its lifetime (`--friend-request-ttl`)")
            let late = try await api.failure(
                .post, "/v1/friend-requests/\(lapsing.id)", AnswerFriendRequest(answer: .accept), bob)
            #expect(late.status == 409 && late.error.code == .friendRequestClosed)
            #expect(late.error.message.contains("expired"))
        }
    }

    @Test func whoMayAddMeDecidesWhatARequestDoes() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let open = try await api.signUp("open")
            let closed = try await api.signUp("closed")
            let _: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(addMe: .anyone), token: open.token)
            let _: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(addMe: .nobody), token: closed.token)
            #expect(try await api.request(alice, befriends: open).status == .accepted, "'anyone' befriends at once")
            #expect(try await api.contacts(of: open).map(\.user.id) == [alice.id])
            let refused = try await api.failure(
                .post, "/v1/friend-requests", SendFriendRequest(userId: closed.id, message: "hi"), alice)
            #expect(refused.status == 403 && refused.error.code == .notAcceptingRequests)
            let inbox: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: closed.token)
            #expect(inbox.incoming.isEmpty, "a refused request is not stored")

            // Asking someone who already asked you is accepting.
            let bob = try await api.signUp("bob")
            let theirs = try await api.request(bob, befriends: alice)
            let mine = try await api.request(alice, befriends: bob)
            #expect(mine.status == .accepted)
            let list: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: bob.token)
            #expect(list.outgoing.isEmpty, "bob's request \(theirs.id) was accepted too")
            #expect(try await api.contacts(of: bob).map(\.user.id) == [alice.id])
        }
    }

    @Test func blockingStopsMessagesRequestsAndFindingUntilLifted() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            try await api.befriend(alice, bob)
            let direct: ConversationDetail = try await api.call(
                .post, "/v1/conversations/direct", OpenDirectRequest(userId: bob.id), token: alice.token)
            _ = try await api.sendText("before", to: direct.conversation.id, as: alice)
            let aliceBefore: SyncResponse = try await api.call(.get, "/v1/sync", token: alice.token)

            let blocked: BlockedUser = try await api.call(.put, "/v1/blocks/\(alice.id)", token: bob.token)
            #expect(blocked.user.id == alice.id)
            #expect(try await api.contacts(of: alice).isEmpty, "no longer friends")
            #expect(try await api.contacts(of: bob).isEmpty)
            let told = try await api.events(of: alice, since: aliceBefore.cursor)
            #expect(told.map(\.type) == [.contactRemoved], "alice sees the friendship end, not the block")

            let refused = try await api.failure(
                .post, "/v1/messages", SendMessageRequest.text("hello?", to: direct.conversation.id, clientMsgId: "m2"),
                alice)
            #expect(refused.status == 403 && refused.error.code == .blocked)
            #expect(
                try await api.fullHistory(of: direct.conversation.id, as: bob).count == 1,
                "the refused message is not stored")
            let request = try await api.failure(.post, "/v1/friend-requests", SendFriendRequest(userId: bob.id), alice)
            #expect(request.status == 403 && request.error.code == .blocked)
            let lookup = try await api.raw(.get, "/v1/users/lookup?username=bob", token: alice.token)
            #expect(lookup.status == 404, "a blocker cannot be found")
            let reverse = try await api.raw(.get, "/v1/users/lookup?username=alice", token: bob.token)
            #expect(reverse.status == 404, "nor the blocked user by the blocker")
            let search: UserSearchPage = try await api.call(.get, "/v1/users/search?q=bob", token: alice.token)
            #expect(search.users.isEmpty)
            let bobSends = try await api.failure(
                .post, "/v1/messages", SendMessageRequest.text("hi", to: direct.conversation.id, clientMsgId: "b1"), bob
            )
            #expect(bobSends.error.code == .blocked, "the blocker is told to unblock first")
            let list: BlockList = try await api.call(.get, "/v1/blocks", token: bob.token)
            #expect(list.blocked.map(\.user.id) == [alice.id])

            let _: EmptyBody = try await api.call(.delete, "/v1/blocks/\(alice.id)", token: bob.token)
            _ = try await api.sendText("after", to: direct.conversation.id, as: alice)
            #expect(
                try await api.fullHistory(of: direct.conversation.id, as: bob).count == 2,
                "unblocking restores messages")
            let found: User = try await api.call(.get, "/v1/users/lookup?username=bob", token: alice.token)
            #expect(found.id == bob.id)
            #expect(try await api.contacts(of: bob).isEmpty, "unblocking does not restore the friendship")
            let emptied: BlockList = try await api.call(.get, "/v1/blocks", token: bob.token)
            #expect(emptied.blocked.isEmpty)
        }
    }

    @Test func aBlockSetsOpenRequestsAsideAndNoEditGroupOrTypingGetsAroundIt() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            let direct: ConversationDetail = try await api.call(
                .post, "/v1/conversations/direct", OpenDirectRequest(userId: bob.id), token: alice.token)
            let first = try await api.sendText("before", to: direct.conversation.id, as: alice, clientMsgId: "m1")
            let hers = try await api.request(alice, befriends: bob)
            let his = try await api.request(bob, befriends: carol)
            let team = try await api.createGroup("Team", by: alice, with: [carol])
            let bobsGroup = try await api.createGroup("Bobs", by: bob, with: [carol])
            let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(alice.id)", token: bob.token)
            let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(carol.id)", token: bob.token)

            let bobs: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: bob.token)
            #expect(bobs.incoming.isEmpty && bobs.ignored.map(\.id) == [hers.id], "her request is set aside")
            #expect(bobs.outgoing.isEmpty, "his own request lapsed")
            let carols: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: carol.token)
            #expect(carols.incoming.isEmpty, "carol no longer has his request to answer: \(his.id)")
            let alices: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: alice.token)
            #expect(alices.outgoing.map(\.status) == [.pending], "the blocked user is not told")
            let underBlock = try await api.failure(
                .post, "/v1/friend-requests/\(hers.id)", AnswerFriendRequest(answer: .accept), bob)
            #expect(underBlock.status == 403 && underBlock.error.code == .blocked)

            let retried = try await api.sendText("before", to: direct.conversation.id, as: alice, clientMsgId: "m1")
            #expect(retried.duplicate && retried.message.id == first.message.id, "a retry still gets the original")
            let edited = try await api.failure(
                .patch, "/v1/messages/\(first.message.id)", EditMessageRequest(text: "changed"), alice)
            #expect(edited.status == 403 && edited.error.code == .blocked, "an edit is a new text to him")
            let grouped = try await api.failure(
                .post, "/v1/conversations", CreateGroupRequest(name: "Trap", memberIds: [carol.id, bob.id, bob.id]),
                alice)
            #expect(grouped.status == 403 && grouped.error.code == .blocked, "a new group is no way around a block")
            let byBlocker = try await api.failure(
                .post, "/v1/conversations", CreateGroupRequest(name: "Mine", memberIds: [alice.id, carol.id]), bob)
            #expect(byBlocker.error.code == .blocked, "nor may the blocker put them in one")
            #expect(byBlocker.error.message.contains("User \(alice.id) cannot"), "the lowest id is named")
            let added = try await api.failure(
                .post, "/v1/conversations/\(team)/members", AddMembersRequest(userIds: [bob.id]), alice)
            #expect(added.error.code == .blocked, "nor is adding him to one")
            let again: MembersAdded = try await api.call(
                .post, "/v1/conversations/\(bobsGroup)/members", AddMembersRequest(userIds: [carol.id]),
                token: bob.token)
            #expect(
                again.members.isEmpty && again.noticeSeq == nil,
                "re-adding someone in the group already adds nobody, block or not")
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let typing = try await socket.request(
                .typing, TypingRequest(conversationId: direct.conversation.id, typing: true))
            #expect(typing.type == "error" && typing.text.contains("blocked"), "\(typing.text)")
            await socket.close()
            #expect(try await api.fullHistory(of: direct.conversation.id, as: bob).map(\.id) == [first.message.id])

            let _: EmptyBody = try await api.call(.delete, "/v1/blocks/\(alice.id)", token: bob.token)
            #expect(
                try await api.answer(hers.id, .accept, by: bob).status == .accepted,
                "after unblocking it is his to accept")
            #expect(
                try await api.answer(hers.id, .accept, by: bob).status == .accepted, "and accepting again is a no-op")
        }
    }

    @Test func aUserMayTakeDirectMessagesFromFriendsOnly() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            try await api.befriend(alice, bob)
            let _: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(messageFrom: .friends), token: bob.token)
            let stranger = try await api.failure(
                .post, "/v1/messages",
                SendMessageRequest(toUserId: bob.id, clientMsgId: "c1", kind: .text, content: ["text": "hi"]), carol)
            #expect(stranger.status == 403 && stranger.error.code == .notAFriend)
            let opened = try await api.failure(
                .post, "/v1/conversations/direct", OpenDirectRequest(userId: bob.id), carol)
            #expect(opened.error.code == .notAFriend, "nor may they open a conversation with him")
            let bobList: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)
            #expect(bobList.conversations.count == 1, "only the friend's conversation exists")
            let sent: SendMessageResponse = try await api.call(
                .post, "/v1/messages",
                SendMessageRequest(toUserId: bob.id, clientMsgId: "a1", kind: .text, content: ["text": "hi"]),
                token: alice.token)
            #expect(sent.message.seq == 1)
        }
    }

    @Test func removingAFriendHidesAndClearsTheConversationForTheRemoverOnly() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            try await api.befriend(alice, bob)
            let direct: ConversationDetail = try await api.call(
                .post, "/v1/conversations/direct", OpenDirectRequest(userId: bob.id), token: alice.token)
            for text in ["one", "two"] { _ = try await api.sendText(text, to: direct.conversation.id, as: bob) }
            let bobBefore: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)

            let _: EmptyBody = try await api.call(.delete, "/v1/contacts/\(bob.id)", token: alice.token)
            #expect(try await api.contacts(of: alice).isEmpty)
            #expect(try await api.contacts(of: bob).isEmpty)
            let aliceList: SyncResponse = try await api.call(.get, "/v1/sync", token: alice.token)
            let hidden = aliceList.conversations.first { $0.id == direct.conversation.id }
            #expect(hidden.map { $0.settings.hides(maxSeq: $0.maxSeq) } == true, "hidden in the remover's list")
            #expect(
                try await api.fullHistory(of: direct.conversation.id, as: alice).isEmpty,
                "and its history cleared for her")
            #expect(try await api.fullHistory(of: direct.conversation.id, as: bob).count == 2, "bob keeps his history")
            #expect(try await api.events(of: bob, since: bobBefore.cursor).map(\.type) == [.contactRemoved])
            let twice = try await api.failure(.delete, "/v1/contacts/\(bob.id)", EmptyBody?.none, alice)
            #expect(twice.status == 404 && twice.error.code == .contactNotFound)
        }
    }

    @Test func aRemarkIsTheOwnersAndProfileChangesReachFriendsOnly() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            try await api.befriend(alice, bob)
            let remarked: Contact = try await api.call(
                .patch, "/v1/contacts/\(bob.id)", UpdateContactRequest(remark: " Bobby  "), token: alice.token)
            #expect(remarked.remark == "Bobby")
            #expect(try await api.contacts(of: bob).map(\.remark) == [""], "a remark is only its owner's")
            let close: FriendGroup = try await api.call(
                .post, "/v1/friend-groups", FriendGroupRequest(name: "Close"), token: alice.token)
            let _: Contact = try await api.call(
                .patch, "/v1/contacts/\(bob.id)", UpdateContactRequest(groups: [close.id]), token: alice.token)
            let aliceBefore: SyncResponse = try await api.call(.get, "/v1/sync", token: alice.token)
            let carolBefore: SyncResponse = try await api.call(.get, "/v1/sync", token: carol.token)

            let _: Account = try await api.call(
                .patch, "/v1/me", ProfileUpdate(nickname: "Robert", signature: "on leave"), token: bob.token)
            let told = try await api.events(of: alice, since: aliceBefore.cursor)
            guard case .contactUpdated(let updated) = told.first?.body, told.count == 1 else {
                Issue.record("alice was not told once: \(told)")
                return
            }
            #expect(updated.contact.user.nickname == "Robert" && updated.contact.user.signature == "on leave")
            #expect(
                updated.contact.remark == "Bobby" && updated.contact.groups == [close.id], "her remark and groups stay")
            #expect(try await api.events(of: carol, since: carolBefore.cursor).isEmpty, "strangers hear nothing")
            let cleared: Contact = try await api.call(
                .patch, "/v1/contacts/\(bob.id)", UpdateContactRequest(remark: ""), token: alice.token)
            #expect(cleared.remark == "")
        }
    }

    @Test func friendGroupsAreTheOwnersTagsAFriendMayBeInSeveralAndListsFilterByThem() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            try await api.befriend(alice, bob)
            try await api.befriend(alice, carol)
            let before: SyncResponse = try await api.call(.get, "/v1/sync", token: alice.token)
            let work: FriendGroup = try await api.call(
                .post, "/v1/friend-groups", FriendGroupRequest(name: " Work "), token: alice.token)
            let family: FriendGroup = try await api.call(
                .post, "/v1/friend-groups", FriendGroupRequest(name: "家人"), token: alice.token)
            #expect(work.name == "Work")
            let both: Contact = try await api.call(
                .patch, "/v1/contacts/\(bob.id)", UpdateContactRequest(groups: [family.id, work.id, work.id]),
                token: alice.token)
            #expect(both.groups == [work.id, family.id], "in both, once each")
            let _: Contact = try await api.call(
                .patch, "/v1/contacts/\(carol.id)", UpdateContactRequest(groups: [work.id]), token: alice.token)
            let atWork: ContactList = try await api.call(.get, "/v1/contacts?group=\(work.id)", token: alice.token)
            #expect(atWork.contacts.map(\.user.id) == [bob.id, carol.id])
            let atHome: ContactList = try await api.call(.get, "/v1/contacts?group=\(family.id)", token: alice.token)
            #expect(atHome.contacts.map(\.user.id) == [bob.id])
            #expect(try await api.contacts(of: bob).first?.groups == [], "groups are their owner's own")

            let renamed: FriendGroup = try await api.call(
                .patch, "/v1/friend-groups/\(work.id)", FriendGroupRequest(name: "Team"), token: alice.token)
            #expect(renamed.id == work.id && renamed.name == "Team")
            let _: EmptyBody = try await api.call(.delete, "/v1/friend-groups/\(family.id)", token: alice.token)
            let groups: FriendGroupList = try await api.call(.get, "/v1/friend-groups", token: alice.token)
            #expect(groups.groups.map(\.name) == ["Team"])
            #expect(
                try await api.contacts(of: alice).map(\.groups) == [[work.id], [work.id]], "out of the deleted one")
            let _: EmptyBody = try await api.call(.delete, "/v1/contacts/\(carol.id)", token: alice.token)
            try await api.befriend(alice, carol)
            #expect(
                try await api.contacts(of: alice).map(\.groups) == [[work.id], []], "a removed friend leaves the groups"
            )
            let events = try await api.events(of: alice, since: before.cursor).map(\.type)
            #expect(events.filter { $0 == .friendGroupUpdated }.count == 3)
            #expect(events.filter { $0 == .friendGroupRemoved }.count == 1)

            let taken = try await api.failure(.post, "/v1/friend-groups", FriendGroupRequest(name: "Team"), alice)
            #expect(taken.status == 409 && taken.error.code == .friendGroupExists)
            let bobsGroup: FriendGroup = try await api.call(
                .post, "/v1/friend-groups", FriendGroupRequest(name: "Team"), token: bob.token)
            let notHers = try await api.failure(
                .patch, "/v1/contacts/\(bob.id)", UpdateContactRequest(groups: [bobsGroup.id]), alice)
            #expect(notHers.status == 404 && notHers.error.code == .friendGroupNotFound)
            let renameTheirs = try await api.failure(
                .patch, "/v1/friend-groups/\(bobsGroup.id)", FriendGroupRequest(name: "Mine"), alice)
            #expect(renameTheirs.status == 404 && renameTheirs.error.code == .friendGroupNotFound)
            let listTheirs = try await api.raw(.get, "/v1/contacts?group=\(bobsGroup.id)", token: alice.token)
            #expect(listTheirs.status == 404)
            for name in ["", String(repeating: "x", count: 33)] {
                let bad = try await api.failure(.post, "/v1/friend-groups", FriendGroupRequest(name: name), alice)
                #expect(bad.status == 400 && bad.error.code == .invalidField, "'\(name)'")
            }
            for index in 2...ContactLimits.maxFriendGroups {
                let _: FriendGroup = try await api.call(
                    .post, "/v1/friend-groups", FriendGroupRequest(name: "g\(index)"), token: alice.token)
            }
            let tooMany = try await api.failure(.post, "/v1/friend-groups", FriendGroupRequest(name: "one more"), alice)
            #expect(tooMany.status == 409 && tooMany.error.code == .tooManyFriendGroups)
            let all: FriendGroupList = try await api.call(.get, "/v1/friend-groups", token: alice.token)
            #expect(all.groups.count == ContactLimits.maxFriendGroups, "the refusals made nothing")
        }
    }

    @Test func recommendationsRankByMutualFriendsThenSharedGroupsAndLeaveOutWhoMustNotAppear() async throws {
        try await withServer { api in
            var users: [String: TestUser] = [:]
            for name in ["alice", "bob", "carol", "dave", "erin", "fay", "frank", "gina", "hank"] {
                users[name] = try await api.signUp(name)
            }
            let u = users.mapValues { $0 }
            try await api.befriend(u["alice"]!, u["bob"]!)
            try await api.befriend(u["alice"]!, u["carol"]!)
            for (one, other) in [
                ("bob", "dave"), ("carol", "dave"), ("bob", "erin"), ("bob", "frank"), ("bob", "gina"), ("bob", "hank"),
            ] {
                try await api.befriend(u[one]!, u[other]!)
            }
            _ = try await api.createGroup("Club", by: u["alice"]!, with: [u["erin"]!, u["fay"]!])
            let asked = try await api.request(u["alice"]!, befriends: u["frank"]!)
            _ = try await api.answer(asked.id, .reject, by: u["frank"]!)
            let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(u["gina"]!.id)", token: u["alice"]!.token)
            let _: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(addMe: .nobody), token: u["hank"]!.token)
            let jay = try await api.signUp("jay")
            try await api.befriend(u["bob"]!, jay)
            let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(u["alice"]!.id)", token: jay.token)
            let ivy = try await api.signUp("ivy")
            try await api.befriend(u["bob"]!, ivy)
            let _: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(findByNickname: .nobody), token: ivy.token)

            let list: RecommendationList = try await api.call(
                .get, "/v1/contacts/recommendations", token: u["alice"]!.token)
            #expect(list.recommendations.map(\.user.username) == ["dave", "erin", "fay"])
            #expect(
                list.recommendations.map(\.reason) == [
                    "2 mutual friends", "1 mutual friend, 1 shared group", "1 shared group",
                ])
            let one: RecommendationList = try await api.call(
                .get, "/v1/contacts/recommendations?limit=1", token: u["alice"]!.token)
            #expect(one.recommendations.map(\.user.username) == ["dave"])
            _ = try await api.request(u["alice"]!, befriends: u["dave"]!)
            let afterAsking: RecommendationList = try await api.call(
                .get, "/v1/contacts/recommendations", token: u["alice"]!.token)
            #expect(afterAsking.recommendations.map(\.user.username) == ["erin", "fay"], "not someone already asked")
            for limit in ["0", "51", "x"] {
                let bad = try await api.raw(
                    .get, "/v1/contacts/recommendations?limit=\(limit)", token: u["alice"]!.token)
                #expect(bad.status == 400, "limit \(limit)")
            }
        }
    }

    @Test func badInputGetsAPreciseErrorAndChangesNothing() async throws {
        try await withServer(configure: { $0.sensitiveWordsPath = Self.wordList() }) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cases: [(String, String, String, Int, ErrorCode)] = [
                ("POST", "/v1/friend-requests", #"{"userId": \#(alice.id)}"#, 400, .cannotAddSelf),
                ("POST", "/v1/friend-requests", #"{"userId": 999999}"#, 404, .userNotFound),
                ("POST", "/v1/friend-requests", #"{"message": "hi"}"#, 400, .missingField),
                ("POST", "/v1/friend-requests", #"{"userId": "bob"}"#, 400, .invalidField),
                ("POST", "/v1/friend-requests", #"{"userId": \#(bob.id), "note": "x"}"#, 400, .unknownField),
                (
                    "POST", "/v1/friend-requests",
                    #"{"userId": \#(bob.id), "message": "\#(String(repeating: "长", count: 201))"}"#, 400,
                    .invalidField
                ),
                ("POST", "/v1/friend-requests", #"{"userId": \#(bob.id), "message": "a\u0007b"}"#, 400, .invalidField),
                (
                    "POST", "/v1/friend-requests", #"{"userId": \#(bob.id), "message": "buy 赌 博 now"}"#, 400,
                    .textNotAllowed
                ),
                ("POST", "/v1/friend-requests/424242", #"{"answer": "accept"}"#, 404, .friendRequestNotFound),
                ("PATCH", "/v1/contacts/\(bob.id)", #"{"remark": "Bob"}"#, 404, .contactNotFound),
                ("PATCH", "/v1/contacts/\(bob.id)", #"{}"#, 400, .missingField),
                ("PATCH", "/v1/contacts/\(bob.id)", #"{"groups": 3}"#, 400, .invalidField),
                ("POST", "/v1/friend-groups", #"{}"#, 400, .missingField),
                ("PATCH", "/v1/friend-groups/424242", #"{"name": "x"}"#, 404, .friendGroupNotFound),
                ("DELETE", "/v1/friend-groups/424242", "", 404, .friendGroupNotFound),
                ("POST", "/v1/friend-groups", #"{"name": "赌博"}"#, 400, .textNotAllowed),
                ("PUT", "/v1/blocks/\(alice.id)", "", 400, .invalidField),
                ("PUT", "/v1/blocks/999999", "", 404, .userNotFound),
                ("DELETE", "/v1/blocks/999999", "", 404, .userNotFound),
                ("PATCH", "/v1/me/privacy", #"{"addMe": "friends"}"#, 400, .invalidField),
                ("PATCH", "/v1/me/privacy", #"{"messageFrom": "nobody"}"#, 400, .invalidField),
            ]
            for (method, path, body, status, code) in cases {
                let answer = try await api.raw(
                    .init(rawValue: method)!, path, body: body.isEmpty ? nil : body, token: alice.token)
                #expect(answer.status == status, "\(method) \(path) \(body): \(answer.body)")
                #expect(
                    (try? decodeJSON(ErrorBody.self, answer.body).error.code) == code, "\(method) \(path) \(body)")
            }
            let request = try await api.request(bob, befriends: alice)
            let bySender = try await api.failure(
                .post, "/v1/friend-requests/\(request.id)", AnswerFriendRequest(answer: .accept), bob)
            #expect(
                bySender.status == 404 && bySender.error.code == .friendRequestNotFound, "only the recipient answers")
            let badAnswer = try await api.raw(
                .post, "/v1/friend-requests/\(request.id)", body: #"{"answer": "maybe"}"#, token: alice.token)
            #expect(
                badAnswer.status == 400 && (try? decodeJSON(ErrorBody.self, badAnswer.body).error.code) == .invalidField
            )
            #expect(try await api.answer(request.id, .accept, by: alice).status == .accepted)
            for (remark, code) in [
                (String(repeating: "x", count: 65), ErrorCode.remarkInvalid), ("a\u{7}b", .remarkInvalid),
                ("赌博", .textNotAllowed),
            ] {
                let refused = try await api.failure(
                    .patch, "/v1/contacts/\(bob.id)", UpdateContactRequest(remark: remark), alice)
                #expect(refused.error.code == code, "\(remark)")
            }
            #expect(try await api.contacts(of: alice).map(\.remark) == [""], "nothing changed")
            #expect(try await api.contacts(of: alice).count == 1)
            let inbox: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: bob.token)
            #expect(inbox.incoming.isEmpty && inbox.outgoing.isEmpty)
        }
    }

    static func wordList() -> String {
        let path = temporaryDirectory() + "/words.txt"
        _ = FileManager.default.createFile(atPath: path, contents: Data("赌博\n".utf8))
        return path
    }
}

extension TestAPI {
    /// `user` asks `other` to be friends.
    func request(_ user: TestUser, befriends other: TestUser, _ message: String = "") async throws -> FriendRequest {
        try await call(
            .post, "/v1/friend-requests", SendFriendRequest(userId: other.id, message: message), token: user.token)
    }

    func answer(_ id: FriendRequestID, _ answer: FriendRequestAnswer, by user: TestUser) async throws -> FriendRequest {
        try await call(.post, "/v1/friend-requests/\(id)", AnswerFriendRequest(answer: answer), token: user.token)
    }

    /// Makes two users friends by a request and its acceptance.
    func befriend(_ one: TestUser, _ other: TestUser) async throws {
        let request = try await self.request(one, befriends: other)
        #expect(try await answer(request.id, .accept, by: other).status == .accepted)
    }

    func contacts(of user: TestUser) async throws -> [Contact] {
        let list: ContactList = try await call(.get, "/v1/contacts", token: user.token)
        return list.contacts
    }

    /// The events `user` gets through sync after `cursor`, every page.
    func events(of user: TestUser, since cursor: String) async throws -> [UserEvent] {
        var events: [UserEvent] = []
        var cursor = cursor
        while true {
            let page: SyncResponse = try await call(.get, "/v1/sync?cursor=\(cursor)", token: user.token)
            events += page.events
            cursor = page.cursor
            if !page.hasMore { return events }
        }
    }

    /// The failure of a call that must fail.
    func failure(
        _ method: HTTPRequest.Method, _ path: String, _ body: (some Encodable)?, _ user: TestUser
    ) async throws -> APIFailure {
        do {
            let _: EmptyBody = try await call(method, path, body, token: user.token)
        } catch let failure as APIFailure {
            return failure
        }
        Issue.record("\(method) \(path) succeeded")
        return APIFailure(status: 200, error: ParleyError(.internalError, "succeeded"))
    }
}
