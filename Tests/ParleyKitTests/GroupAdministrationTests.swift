import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import ParleyTesting
import Synchronization
import Testing

/// A group of alice (owner), bob and carol on a fresh server, each with a client.
func aliceBobAndCarolInAGroup() async throws -> (
    InProcessServer, ParleyClient, ParleyClient, ParleyClient, ConversationID
) {
    let (server, alice, bob, _) = try await aliceAndBob()
    let carol = try makeClient(server.url)
    try await signUp(carol, "carol")
    let group = try await alice.conversations.createGroup(name: "Team", usernames: ["bob", "carol"]).id
    return (server, alice, bob, carol, group)
}

func id(of client: ParleyClient) async throws -> UserID {
    try #require(await client.session.currentUser?.id)
}

func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

/// What a member list says that every member's devices agree on (read watermarks move on
/// their own).
func roster(_ members: [Member]) -> [String] {
    members.map { "\($0.userId) \($0.role.rawValue) \($0.nickname ?? "-") \($0.mutedUntil ?? 0)" }
}

/// The snapshots a group observation published, in order.
final class SnapshotLog: Sendable {
    private let entries = Mutex<[GroupSnapshot]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ stream: AsyncStream<GroupSnapshot>) {
        task.withLock { $0 = Task { for await snapshot in stream { self.entries.withLock { $0.append(snapshot) } } } }
    }

    var latest: GroupSnapshot? { entries.withLock { $0.last } }
    func stop() { task.withLock { $0?.cancel() } }
}

extension LiveServerSuites {
    @Suite(.serialized) struct GroupAdministrationTests {
        @Test func anAdminsMuteStopsAMembersSendsUntilItEndsAndObserversSeeRolesAndMutesLive() async throws {
            let (server, alice, bob, carol, group) = try await aliceBobAndCarolInAGroup()
            let (bobId, carolId) = (try await id(of: bob), try await id(of: carol))
            for client in [alice, bob, carol] { await client.connect() }
            let watched = SnapshotLog(await carol.groups.observe(group))
            try await eventually("carol's device fetches the member list") {
                watched.latest?.membersAreComplete == true && watched.latest?.members.count == 3
            }

            try await alice.groups.setRole(.admin, of: bobId, in: group)
            try await eventually("carol sees bob become an admin") { watched.latest?.member(bobId)?.role == .admin }
            let until = nowMs() + 3_600_000
            try await bob.groups.mute(carolId, in: group, until: until)
            try await eventually("carol sees her own mute") { watched.latest?.member(carolId)?.mutedUntil == until }

            let refused = try await carol.sendQueue.send(text: "can I speak?", to: group)
            guard case .failed(_, let retryable) = await refused.settled() else {
                Issue.record("a muted member's message must fail")
                return
            }
            #expect(!retryable, "it cannot succeed unchanged")
            let rejection = try #require(await refused.rejection)
            #expect(rejection.code == .muted)
            #expect(rejection.until == until)

            try await bob.groups.unmute(carolId, in: group)
            try await eventually { watched.latest?.member(carolId)?.mutedUntil == nil }
            let thanks = try await carol.sendQueue.send(text: "thanks", to: group).settled()
            guard case .sent = thanks else {
                Issue.record("an unmuted member sends again: \(thanks)")
                return
            }
            let notices = try await serverHistory(group, via: alice).compactMap { message -> SystemEvent? in
                guard case .system(let notice) = message.typedContent else { return nil }
                return notice.event
            }
            #expect(notices == [.adminAdded, .memberMuted, .memberUnmuted])
            watched.stop()
            for client in [alice, bob, carol] { await client.disconnect() }
            await server.stop()
        }

        @Test func anAdditionAnswersWhomItAddedAndTheAddersListHoldsThemBeforeTheNoticeArrives() async throws {
            let (server, alice, _, carol, group) = try await aliceBobAndCarolInAGroup()
            let dave = try makeClient(server.url)
            try await signUp(dave, "dave")
            let (carolId, daveId) = (try await id(of: carol), try await id(of: dave))
            try await alice.groups.refresh(group)

            // Alice's client has no socket: nothing but the answer tells it of the join.
            let added = try await alice.groups.add([carolId, daveId], to: group)
            #expect(added.conversationId == group)
            #expect(added.members.map(\.userId) == [daveId], "carol was a member already; the list is not repeated")
            #expect(added.members.first?.role == .member)
            let noticeSeq = try #require(added.noticeSeq)
            let held = try alice.store.group(group, viewer: nil)
            #expect(held.membersAreComplete && held.member(daveId) != nil, "the list holds dave at once")
            #expect(try alice.store.conversation(group)?.memberCount == 4)

            let notice = try await serverHistory(group, via: alice).first { $0.seq == noticeSeq }
            guard case .system(let joined) = notice?.typedContent else {
                Issue.record("the answer's seq is the join's notice, not \(String(describing: notice))")
                return
            }
            #expect(joined.event == .memberJoined && joined.userIds == [daveId])

            await alice.catchUp()
            let current = try await alice.groups.refresh(group)
            #expect(roster(try alice.store.group(group, viewer: nil).members) == roster(current.members))
            let again = try await alice.groups.add([daveId], to: group)
            #expect(again.members.isEmpty && again.noticeSeq == nil, "adding a member again adds nobody")
            #expect(try await serverHistory(group, via: alice).last?.seq == noticeSeq, "and writes no notice")
            await server.stop()
        }

        @Test func aMemberWhoWasOfflineCatchesUpThroughSyncToTheSameGroupExactlyOnce() async throws {
            let (server, alice, bob, carol, group) = try await aliceBobAndCarolInAGroup()
            let dave = try makeClient(server.url)
            try await signUp(dave, "dave")
            let (bobId, daveId) = (try await id(of: bob), try await id(of: dave))
            await carol.catchUp()
            try await carol.groups.refresh(group)
            #expect(try carol.store.group(group, viewer: nil).membersAreComplete)

            // Carol's client is stopped while the group changes.
            try await alice.groups.setRole(.admin, of: bobId, in: group)
            try await alice.groups.add([daveId], to: group)
            try await bob.groups.mute(daveId, in: group, until: Limits.mutedUntilLifted)
            try await bob.groups.setNickname("Bobby", in: group)
            try await alice.groups.update(
                group, UpdateGroupRequest(name: "Launch", description: "Ship it", announcement: "Friday at noon"))
            try await alice.groups.remove(bobId, from: group)
            try await alice.groups.add([bobId], to: group)
            try await alice.sendQueue.send(text: "welcome back", to: group).settled()

            await carol.catchUp()
            let current = try await alice.groups.refresh(group)
            let caughtUp = try carol.store.group(group, viewer: nil)
            #expect(caughtUp.membersAreComplete, "followed through notices and events, not fetched again")
            #expect(roster(caughtUp.members) == roster(current.members))
            #expect(caughtUp.member(bobId)?.role == .member, "bob came back as a plain member")
            #expect(caughtUp.member(daveId)?.mutedUntil == Limits.mutedUntilLifted)
            #expect(caughtUp.profile == current.conversation.group)
            #expect(caughtUp.profile?.announcement?.text == "Friday at noon")
            #expect(try carol.store.conversation(group)?.name == "Launch")
            #expect(try carol.store.conversation(group)?.memberCount == 4)
            let history = try await serverHistory(group, via: alice)
            #expect(try carol.store.allMessages(in: group) == history, "every notice and message once, in order")

            await carol.catchUp()
            #expect(try carol.store.group(group, viewer: nil) == caughtUp, "a second sync changes nothing")
            await server.stop()
        }

        @Test func aRemovedMemberKeepsTheHistoryReadOnlyAndReceivesNothingMore() async throws {
            let (server, alice, bob, carol, group) = try await aliceBobAndCarolInAGroup()
            let (aliceId, bobId) = (try await id(of: alice), try await id(of: bob))
            for client in [alice, bob, carol] { await client.connect() }
            try await alice.sendQueue.send(text: "before", to: group).settled()
            try await eventually { try bob.store.conversation(group)?.maxSeq == 1 }
            let watched = SnapshotLog(await bob.groups.observe(group))

            try await alice.groups.remove(bobId, from: group)
            let removal = ConversationRemoved(conversationId: group, reason: .removed, removedBy: aliceId, lastSeq: 2)
            try await eventually("bob's device marks the group left") { watched.latest?.removal == removal }
            try await alice.sendQueue.send(text: "after", to: group).settled()
            try await eventually { try carol.store.conversation(group)?.maxSeq == 3 }
            await bob.catchUp()
            let kept = try bob.store.allMessages(in: group)
            #expect(kept == Array(try await serverHistory(group, via: alice).prefix(2)), "up to the removal's notice")
            #expect(kept.first.map { text($0.content) } == "before", "bob keeps the history")
            #expect(!kept.contains { text($0.content) == "after" }, "and gets nothing sent after his removal")
            #expect(try bob.store.conversation(group)?.maxSeq == 2)
            #expect(try bob.store.hasLeft(group))
            #expect(try bob.conversations.list.current().contains { $0.id == group }, "still in bob's list")

            let chat = await bob.conversations.chat(group)
            try await chat.load()
            #expect(await chat.items.map(\.seq) == kept.map(\.seq), "a left group opens from the store")
            let refused = try await bob.sendQueue.send(text: "let me back", to: group)
            _ = await refused.settled()
            #expect(await refused.rejection?.code == .notAMember)
            watched.stop()
            for client in [alice, bob, carol] { await client.disconnect() }
            await server.stop()
        }

        @Test func aMemberRemovedWhileAwayGetsWhatWasSentUpToTheRemovalAndItsNoticeOnceAndNothingAfter() async throws {
            let server = try await InProcessServer.start()
            let requests = RecordedHTTP()
            let (alice, bob, carol) = (
                try makeClient(server.url), try makeClient(server.url, http: requests), try makeClient(server.url)
            )
            for (client, name) in [(alice, "alice"), (bob, "bob"), (carol, "carol")] { try await signUp(client, name) }
            let group = try await alice.conversations.createGroup(name: "Team", usernames: ["bob", "carol"]).id
            let (aliceId, bobId) = (try await id(of: alice), try await id(of: bob))
            await bob.catchUp()
            #expect(try bob.store.conversation(group)?.maxSeq == 0)

            // Bob's client is offline meanwhile.
            for line in ["one", "two"] { try await alice.sendQueue.send(text: line, to: group).settled() }
            try await alice.groups.remove(bobId, from: group)
            try await alice.sendQueue.send(text: "after", to: group).settled()
            let history = try await serverHistory(group, via: alice)
            #expect(history.map { text($0.content) } == ["one", "two", "", "after"])
            guard case .system(let notice) = history[2].typedContent else {
                Issue.record("seq 3 is the notice of bob's removal: \(history[2])")
                return
            }
            #expect(notice.event == .memberRemoved)

            requests.clear()
            await bob.catchUp()
            let removal = ConversationRemoved(conversationId: group, reason: .removed, removedBy: aliceId, lastSeq: 3)
            #expect(try bob.store.group(group, viewer: bobId).removal == removal, "the group is marked left")
            #expect(try bob.store.hasLeft(group))
            #expect(try bob.store.allMessages(in: group) == Array(history.prefix(3)), "up to the notice, not after")
            let summary = try #require(try bob.store.conversation(group))
            #expect(summary.maxSeq == 3)
            #expect(summary.lastMessage == history[2], "the list shows the notice last")
            let fetches = requests.urls.filter { $0.contains(Endpoint.history.path(group)) }
            #expect(fetches.count == 1, "\(fetches)")
            #expect(fetches.allSatisfy { $0.contains("before=4") }, "never beyond lastSeq: \(fetches)")

            requests.clear()
            await bob.catchUp()
            let chat = await bob.conversations.chat(group)
            try await chat.load()
            #expect(await chat.items.map(\.seq) == [1, 2, 3])
            #expect(
                try bob.store.allMessages(in: group) == Array(history.prefix(3)), "a second catch-up changes nothing")
            #expect(try bob.store.conversation(group) == summary)
            #expect(try bob.store.group(group, viewer: bobId).removal == removal)
            #expect(
                !requests.urls.contains { $0.contains(Endpoint.history.path(group)) }, "fetched once: \(requests.urls)")

            // Back in the group: its whole history again, as for any member.
            try await alice.groups.add([bobId], to: group)
            await bob.catchUp()
            #expect(try !bob.store.hasLeft(group))
            #expect(try bob.store.allMessages(in: group) == (try await serverHistory(group, via: alice)))
            await server.stop()
        }

        @Test func aJoinRequestReachesTheOwnerLiveAndApprovalBringsTheRequesterIn() async throws {
            let (server, alice, _, _, group) = try await aliceBobAndCarolInAGroup()
            let (dave, erin) = (try makeClient(server.url), try makeClient(server.url))
            try await signUp(dave, "dave")
            try await signUp(erin, "erin")
            let daveId = try await id(of: dave)
            for client in [alice, dave] { await client.connect() }
            let open = try await alice.groups.createLink(for: group, maxUses: 1)

            // An open group admits at once; the link is then used up.
            #expect(try await erin.groups.preview(code: open.code).memberCount == 3)
            let joined = try await erin.groups.join(code: open.code)
            #expect(joined.conversation?.conversation.id == group)
            #expect(try erin.store.conversation(group)?.name == "Team")
            #expect(try erin.store.group(group, viewer: nil).members.count == 4)
            let usedUp = await #expect(throws: ParleyError.self) { try await dave.groups.join(code: open.code) }
            #expect(usedUp?.code == .inviteExpired)

            try await alice.groups.update(group, UpdateGroupRequest(joinPolicy: .approval))
            let link = try await alice.groups.createLink(for: group, expiresInSeconds: 3_600)
            let watched = SnapshotLog(await alice.groups.observe(group))
            let asked = try await dave.groups.join(code: link.code, message: "I'm on the launch team")
            #expect(asked.conversation == nil)
            #expect(asked.request?.state == .pending)
            try await eventually("alice sees the request live") {
                watched.latest?.pendingRequests.map(\.userId) == [daveId]
            }
            #expect(watched.latest?.pendingRequests.first?.message == "I'm on the launch team")
            #expect(try dave.store.conversation(group) == nil)

            let approved = try await alice.groups.resolve(requestOf: daveId, in: group, approve: true)
            #expect(approved.state == .approved)
            try await eventually("dave's device gets the group") { try dave.store.conversation(group) != nil }
            try await eventually("alice sees dave in and no request left") {
                watched.latest?.member(daveId) != nil && watched.latest?.pendingRequests.isEmpty == true
            }
            try await eventually("dave's device has the member list") {
                (try? dave.store.group(group, viewer: daveId).members.count) == 5
            }
            watched.stop()
            for client in [alice, dave] { await client.disconnect() }
            await server.stop()
        }
    }
}

/// Passes HTTP through, noting each request's method and URL.
final class RecordedHTTP: HTTPTransport {
    private let http = AsyncHTTPTransport(timeout: testHTTPTimeout)
    private let seen = Mutex<[String]>([])

    var urls: [String] { seen.withLock { $0 } }
    func clear() { seen.withLock { $0 = [] } }

    func perform(method: String, url: String, headers: [String: String], body: Data?) async throws -> (
        status: Int, body: Data
    ) {
        seen.withLock { $0.append("\(method) \(url)") }
        return try await http.perform(method: method, url: url, headers: headers, body: body)
    }
}
