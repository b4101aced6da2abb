import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import ParleyTesting
import Synchronization
import Testing

/// Another device of a user already signed up: its own login, its own store.
func secondDevice(of username: String, on server: InProcessServer) async throws -> ParleyClient {
    let device = try makeClient(server.url, device: "second")
    try await device.session.login(username, password: "Passw0rd!")
    return device
}

/// The item at `seq` of a chat, if shown.
func shown(_ context: ChatContext, seq: Int64) async -> ChatItem? {
    await context.items.first { $0.seq == seq }
}

/// A network that loses the answers to the first `count` requests whose URL contains `path`,
/// after the server handled them (the case a retry must not double).
final class AnswerLosingTransport: HTTPTransport {
    private let inner = AsyncHTTPTransport(timeout: testHTTPTimeout)
    private let path: String
    private let losses: Mutex<Int>

    init(losing count: Int, of path: String) {
        self.path = path
        losses = Mutex(count)
    }

    func perform(method: String, url: String, headers: [String: String], body: Data?) async throws
        -> (status: Int, body: Data)
    {
        let answer = try await inner.perform(method: method, url: url, headers: headers, body: body)
        let lose =
            url.contains(path)
            && losses.withLock { left in
                guard left > 0 else { return false }
                left -= 1
                return true
            }
        if lose { throw TransportError(.unreachable, "the answer was lost") }
        return answer
    }
}

extension LiveServerSuites {
    @Suite(.serialized) struct MessageActionsTests {
        @Test func aRecallReachesTheOtherSideLiveAndDevicesThatWereAwayExactlyOnce() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            let bobAway = try await secondDevice(of: "bob", on: server)
            let bobLate = try await secondDevice(of: "bob", on: server)
            for client in [alice, bob] { await client.connect() }
            guard case .sent(let seq) = try await alice.sendQueue.send(text: "secret", to: direct).settled() else {
                Issue.record("not sent")
                return
            }
            let chat = await bob.conversations.chat(direct)
            try await chat.load()
            try await eventually("bob sees it") { await shown(chat, seq: seq).map { text($0.content) } == "secret" }
            await bobAway.catchUp()
            #expect(try bobAway.store.message(in: direct, seq: seq).map { text($0.content) } == "secret")

            let original = try #require(try alice.store.message(in: direct, seq: seq))
            let recalled = try await alice.messages.recall(original)
            #expect(recalled.kind == .recalled)
            #expect(try alice.store.recalledText(in: direct, seq: seq) == "secret", "kept for alice to re-edit")
            try await eventually("bob's open chat shows it recalled") {
                await shown(chat, seq: seq)?.recalledBy == original.senderId
            }
            #expect(try bob.store.recalledText(in: direct, seq: seq) == nil, "never kept for others")

            for device in [bobAway, bobLate] {
                await device.catchUp()
                let held = try device.store.allMessages(in: direct)
                #expect(held.filter { $0.seq == seq }.map(\.kind) == [.recalled], "once, recalled")
            }
            #expect(await chat.items.filter { $0.seq == seq }.count == 1)
            for client in [alice, bob] { await client.disconnect() }
            await server.stop()
        }

        @Test func theRecallAndEditWindowsAreTheServersOnceConnected() async throws {
            let server = try await InProcessServer.start {
                $0.messageWindows.recallMs = 5_000
                $0.messageWindows.editMs = 7_000
            }
            let alice = try makeClient(server.url)
            try await signUp(alice, "alice")
            #expect(await alice.messages.windows() == MessageWindows(), "the defaults before")
            await alice.connect()
            try await eventually("announced by `ready`") {
                await alice.messages.windows() == MessageWindows(recallMs: 5_000, editMs: 7_000)
            }
            await alice.disconnect()
            await server.stop()
        }

        @Test func aReplyQuotesItsTargetAndShowsItRecalledOnceItIs() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            for client in [alice, bob] { await client.connect() }
            try await alice.sendQueue.send(text: "lunch at noon?", to: direct).settled()
            let chat = await bob.conversations.chat(direct)
            try await chat.load()
            try await eventually { await shown(chat, seq: 1) != nil }
            let target = try #require(await shown(chat, seq: 1))
            try await chat.sendReply("sure", to: target, mentions: Mentions([try await id(of: alice)])).settled()
            try await eventually("the reply carries the server's quote") { await shown(chat, seq: 2)?.quote != nil }
            #expect(await shown(chat, seq: 2)?.quote?.text == "lunch at noon?")

            try await alice.messages.recall(try #require(try alice.store.message(in: direct, seq: 1)))
            try await eventually("bob's reply now quotes a recalled message") {
                await shown(chat, seq: 2)?.quote?.kind == .recalled
            }
            #expect(await shown(chat, seq: 2)?.quote?.text == nil)
            #expect(try await serverHistory(direct, via: bob)[1].quote?.kind == .recalled, "as the server says")
            for client in [alice, bob] { await client.disconnect() }
            await server.stop()
        }

        @Test func anEditReachesTheOtherSide() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            for client in [alice, bob] { await client.connect() }
            try await alice.sendQueue.send(text: "helo", to: direct).settled()
            let chat = await bob.conversations.chat(direct)
            try await chat.load()
            try await eventually { await shown(chat, seq: 1) != nil }
            let edited = try await alice.messages.edit(
                try #require(try alice.store.message(in: direct, seq: 1)), text: "hello")
            #expect(edited.editedAt != nil)
            try await eventually("bob sees the new text, marked edited") {
                let item = await shown(chat, seq: 1)
                return item.map { text($0.content) } == "hello" && item?.editedAt == edited.editedAt
            }
            for client in [alice, bob] { await client.disconnect() }
            await server.stop()
        }

        /// The first answer of the forward is lost: the call fails, and calling it again makes
        /// no second copy (the same clientMsgIds), whatever the server had done.
        @Test func aForwardToTwoConversationsMakesOneCopyEachEvenWhenRetried() async throws {
            let server = try await InProcessServer.start()
            let alice = try makeClient(server.url, http: AnswerLosingTransport(losing: 1, of: "/forward"))
            let bob = try makeClient(server.url)
            let carol = try makeClient(server.url)
            for (client, name) in [(alice, "alice"), (bob, "bob"), (carol, "carol")] { try await signUp(client, name) }
            let direct = try await alice.conversations.openDirect(withUsername: "bob").id
            let group = try await alice.conversations.createGroup(name: "Team", usernames: ["bob", "carol"]).id
            let withCarol = try await alice.conversations.openDirect(withUsername: "carol").id
            try await bob.sendQueue.send(text: "big news", to: direct).settled()
            await alice.catchUp()
            let source = try #require(try alice.store.message(in: direct, seq: 1))

            await #expect(throws: TransportError.self) {
                try await alice.messages.forward([source], to: [group, withCarol])
            }
            let copies = try await alice.messages.forward([source], to: [group, withCarol])
            #expect(copies.map(\.conversationId) == [group, withCarol])
            for target in [group, withCarol] {
                let forwarded = try await serverHistory(target, via: alice).filter(\.isForwarded)
                #expect(forwarded.map { text($0.content) } == ["big news"], "one copy in \(target)")
            }
            #expect(try alice.store.message(in: withCarol, seq: 1)?.isForwarded == true, "stored at once")
            await server.stop()
        }

        /// A forward whose answer was lost is retried only by the same call: forwarding the same
        /// message to one of its targets again, or again after a call that succeeded, makes a
        /// new copy.
        @Test func aLaterForwardOfTheSameMessageToTheSameConversationMakesANewCopy() async throws {
            let server = try await InProcessServer.start()
            let alice = try makeClient(server.url, http: AnswerLosingTransport(losing: 1, of: "/forward"))
            let bob = try makeClient(server.url)
            for (client, name) in [(alice, "alice"), (bob, "bob")] { try await signUp(client, name) }
            let direct = try await alice.conversations.openDirect(withUsername: "bob").id
            let group = try await alice.conversations.createGroup(name: "Team", usernames: ["bob"]).id
            let other = try await alice.conversations.createGroup(name: "Other", usernames: ["bob"]).id
            try await bob.sendQueue.send(text: "big news", to: direct).settled()
            await alice.catchUp()
            let source = try #require(try alice.store.message(in: direct, seq: 1))

            await #expect(throws: TransportError.self) {
                try await alice.messages.forward([source], to: [group, other])
            }
            // Not a retry of that call: the user forwards it to the team again.
            let again = try await alice.messages.forward([source], to: [group])
            #expect(again.map(\.conversationId) == [group])
            let more = try await alice.messages.forward([source], to: [group])
            #expect(more.first?.seq != again.first?.seq)
            let copies = try await serverHistory(group, via: alice).filter(\.isForwarded)
            #expect(copies.map { text($0.content) } == ["big news", "big news", "big news"], "three forwards")
            await server.stop()
        }

        @Test func mentionsCountUntilReadOnEveryDevice() async throws {
            let (server, alice, bob, carol, group) = try await aliceBobAndCarolInAGroup()
            let carolId = try await id(of: carol)
            let carolPhone = try await secondDevice(of: "carol", on: server)
            await carol.connect()
            await carol.catchUp()
            try await bob.sendQueue.send(text: "@carol look", mentions: Mentions([carolId]), to: group).settled()
            try await alice.sendQueue.send(text: "@all standup", mentions: Mentions(all: true), to: group).settled()
            try await bob.sendQueue.send(text: "no mention", to: group).settled()
            try await eventually("carol's live count rises") {
                try carol.store.conversation(group)?.unreadMentions == 2
            }
            await carolPhone.catchUp()
            #expect(try carolPhone.store.conversation(group)?.unreadMentions == 2, "through sync")

            let maxSeq = try #require(try carol.store.conversation(group)?.maxSeq)
            try await carol.conversations.markRead(group, upTo: maxSeq)
            #expect(try carol.store.conversation(group)?.unreadMentions == 0)
            await carolPhone.catchUp()
            #expect(try carolPhone.store.conversation(group)?.unreadMentions == 0, "read on the other device")
            await carol.disconnect()
            await server.stop()
        }

        @Test func deletingForMeAndClearingReachTheUsersOtherDevicesOnly() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            let bobPhone = try await secondDevice(of: "bob", on: server)
            for text in ["one", "two", "three", "four"] {
                try await alice.sendQueue.send(text: text, to: direct).settled()
            }
            await bob.catchUp()
            await bobPhone.connect()
            await bobPhone.catchUp()
            let chat = await bobPhone.conversations.chat(direct)
            try await chat.load()
            #expect(await chat.items.count == 4)

            try await bob.messages.delete([try #require(try bob.store.message(in: direct, seq: 2))])
            #expect(try bob.store.allMessages(in: direct).map(\.seq) == [1, 3, 4], "at once on this device")
            try await eventually("the phone drops it live") { await chat.items.map(\.seq) == [1, 3, 4] }

            try await bob.messages.clearHistory(in: direct, upTo: 3)
            try await eventually("the phone clears up to 3") { await chat.items.map(\.seq) == [4] }
            let bobLaptop = try await secondDevice(of: "bob", on: server)
            await bobLaptop.catchUp()
            #expect(try bobLaptop.store.allMessages(in: direct).map(\.seq) == [4], "a device that was away")
            #expect(try bobLaptop.store.conversationsWithHoles().isEmpty, "and nothing left to fetch")
            #expect(
                try await serverHistory(direct, via: alice).map(\.kind) == [.text, .text, .text, .text],
                "alice keeps all")
            await bobPhone.disconnect()
            await server.stop()
        }

        @Test func ownMessagesInADirectChatShowDeliveredThenRead() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            await alice.connect()
            let chat = await alice.conversations.chat(direct)
            try await chat.load()
            try await chat.send(text: "ping").settled()
            try await eventually { await shown(chat, seq: 1)?.delivery == .sent }

            await bob.connect()
            try await eventually("bob's device acknowledged it") { await shown(chat, seq: 1)?.delivery == .delivered }
            try await bob.conversations.markRead(direct, upTo: 1)
            try await eventually("bob read it") { await shown(chat, seq: 1)?.delivery == .read }
            #expect(try alice.store.othersDeliveredSeq(direct) == 1)
            for client in [alice, bob] { await client.disconnect() }
            await server.stop()
        }

        @Test func ownMessagesInAGroupShowHowManyReadThem() async throws {
            let (server, alice, bob, carol, group) = try await aliceBobAndCarolInAGroup()
            await alice.connect()
            let chat = await alice.conversations.chat(group)
            try await chat.load()
            try await chat.send(text: "who reads this?").settled()
            let seq = try #require(try alice.store.conversation(group)?.maxSeq)
            try await chat.loadReceipts()
            try await eventually { await shown(chat, seq: seq)?.readBy == 0 }
            try await bob.conversations.markRead(group, upTo: seq)
            try await eventually("read by bob") { await shown(chat, seq: seq)?.readBy == 1 }
            try await carol.conversations.markRead(group, upTo: seq)
            try await eventually("and carol") { await shown(chat, seq: seq)?.readBy == 2 }
            let readers = try await alice.messages.readers(
                of: try #require(try alice.store.message(in: group, seq: seq)))
            #expect(Set(readers.readBy) == Set([try await id(of: bob), try await id(of: carol)]))
            await alice.disconnect()
            await server.stop()
        }
    }
}
