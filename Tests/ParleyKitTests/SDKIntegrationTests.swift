import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import ParleyTesting
import Synchronization
import Testing

/// How long the tests' HTTP calls wait: a hang guard, since a flood in another suite (a
/// debug build on two cores, PostgreSQL beside it) can hold the shared event loops for
/// seconds, and a timed-out setup call is not retried.
let testHTTPTimeout: Duration = .seconds(30)

/// A client with quick timings, over the real transports, HTTP calls waiting up to
/// ``testHTTPTimeout``.
func makeClient(
    _ url: String, storePath: String? = nil, device: String = "test",
    http: any HTTPTransport = AsyncHTTPTransport(timeout: testHTTPTimeout),
    realtime: any RealtimeTransport = NIOWebSocketTransport(), requestTimeout: Duration = .seconds(2)
) throws -> ParleyClient {
    var configuration = ClientConfiguration(serverURL: url)
    configuration.connection.heartbeatInterval = .seconds(1)
    configuration.connection.pongTimeout = .seconds(1)
    configuration.connection.connectTimeout = .seconds(2)
    configuration.connection.initialBackoff = .milliseconds(50)
    configuration.connection.maxBackoff = .milliseconds(500)
    configuration.requestTimeout = requestTimeout
    configuration.sendTimeout = .seconds(600)
    configuration.deviceName = device
    return try ParleyClient(
        configuration: configuration, store: ClientStore(path: storePath), http: http, realtime: realtime
    )
}

func signUp(_ client: ParleyClient, _ username: String) async throws {
    _ = try await client.session.register(RegisterRequest(username: username, password: "Passw0rd!"))
    try await client.session.login(username, password: "Passw0rd!")
}

func text(_ content: JSONValue) -> String { content.objectValue?["text"]?.stringValue ?? "" }

/// The whole history of a conversation as the server has it.
func serverHistory(_ conversationId: ConversationID, via client: ParleyClient) async throws -> [Message] {
    var messages: [Message] = []
    while true {
        let page: HistoryPage = try await client.session.http(
            .history, conversationId, query: ["after": "\(messages.last?.seq ?? 0)", "limit": "200"])
        messages += page.messages
        if !page.hasMore { return messages }
    }
}

/// A fresh server with alice and bob signed in and their direct conversation.
func aliceAndBob() async throws -> (InProcessServer, ParleyClient, ParleyClient, ConversationID) {
    let server = try await InProcessServer.start()
    let alice = try makeClient(server.url)
    let bob = try makeClient(server.url)
    try await signUp(alice, "alice")
    try await signUp(bob, "bob")
    return (server, alice, bob, try await alice.conversations.openDirect(withUsername: "bob").id)
}

extension LiveServerSuites {
    @Suite(.serialized) struct SDKIntegrationTests {
        @Test func aRenameReachesEveryMembersStoreLiveAndAfterBeingAway() async throws {
            let (server, alice, bob, _) = try await aliceAndBob()
            let cyd = try makeClient(server.url)
            try await signUp(cyd, "cyd")
            let group = try await alice.conversations.createGroup(name: "Team", usernames: ["bob", "cyd"]).id
            await bob.connect()
            await bob.catchUp()

            // Alice renames over HTTP (her socket is down); bob hears it live.
            let renamed = try await alice.conversations.rename(group, to: "Launch")
            #expect(renamed.name == "Launch")
            #expect(try alice.store.conversation(group)?.name == "Launch")
            try await eventually("bob's store has the new name from the pushed event") {
                (try? bob.store.conversation(group)?.name) == "Launch"
            }

            // Over the socket, and cyd, who was away, catches up once.
            await alice.connect()
            await alice.catchUp()
            try await alice.conversations.rename(group, to: "发布")
            await cyd.catchUp()
            #expect(try cyd.store.conversation(group)?.name == "发布")
            try await eventually("bob follows the second rename too") {
                (try? bob.store.conversation(group)?.name) == "发布"
            }
            let refused = await #expect(throws: ParleyError.self) {
                try await cyd.conversations.rename(group, to: String(repeating: "x", count: 65))
            }
            #expect(refused?.code == .invalidField)
            #expect(try cyd.store.conversation(group)?.name == "发布")
            for client in [alice, bob, cyd] { await client.disconnect() }
            await server.stop()
        }

        @Test func typingShowsWhoTypesUntilTheyStopOrItExpires() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            for client in [alice, bob] { await client.connect() }
            try await eventually { await alice.connection.status == .connected }
            try await eventually { await bob.connection.status == .connected }
            let seen = EntryLog<[UserID]>()
            let watching = Task {
                for await typists in await bob.typing.typists(in: direct) { seen.append(typists) }
            }
            try await eventually { seen.all == [[]] }

            let aliceId = try #require(await alice.session.currentUser?.id)
            await alice.typing.userIsTyping(in: direct)
            await alice.typing.userIsTyping(in: direct)  // within the refresh time: not sent again
            try await eventually { seen.all.last == [aliceId] }
            await alice.typing.userStoppedTyping(in: direct)
            try await eventually { seen.all.last == [] }

            // Started and never refreshed: gone after the expiry, without a stop.
            await alice.typing.userIsTyping(in: direct)
            try await eventually { seen.all.count == 4 }
            let started = ContinuousClock.now
            try await eventually("the notice expires", timeout: .seconds(20)) { seen.all.count == 5 }
            #expect(ContinuousClock.now - started >= .milliseconds(Limits.typingExpiryMs - 500))
            #expect(seen.all.last == [])
            #expect(await alice.typing.typists(in: direct).first { _ in true } == [], "the typist sees nobody")
            watching.cancel()
            for client in [alice, bob] { await client.disconnect() }
            await server.stop()
        }

        @Test func concurrentCallsShareOneTokenRefreshSoTheSessionSurvives() async throws {
            // Every token expires within the SDK's 60 s margin, so every call refreshes first.
            let server = try await InProcessServer.start(configure: { $0.accessTokenLifetime = .seconds(30) })
            let alice = try makeClient(server.url)
            try await signUp(alice, "alice")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { let _: Account = try await alice.session.http(.getMe) } }
                try await group.waitForAll()
            }
            let me: Account = try await alice.session.http(.getMe)
            #expect(me.user.username == "alice", "a refresh token presented twice would have revoked the session")
            await server.stop()
        }

        @Test func outboxSurvivesTheClientBeingKilledAndDeliversEachMessageOnceInOrder() async throws {
            var phases = PhaseClock()
            let port = try freePort()
            let data = temporaryDirectory()
            let storePath = temporaryDirectory() + "/alice.sqlite"
            var server = try await InProcessServer.start(port: port, dataDirectory: data)
            let bob = try makeClient(server.url)
            try await signUp(bob, "bob")
            var alice: ParleyClient? = try makeClient(server.url, storePath: storePath)
            try await signUp(alice!, "alice")
            let direct = try await alice!.conversations.openDirect(withUsername: "bob").id
            await server.stop()
            phases.mark("setup and stop")

            await alice!.connect()
            for number in 1...25 { try await alice!.sendQueue.send(text: "offline \(number)", to: direct) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(try alice!.store.sendingItems().count == 25, "nothing can be sent while the server is down")
            await alice!.disconnect()
            alice = nil
            phases.mark("offline sends")

            let reopened = try makeClient(server.url, storePath: storePath)
            #expect(try reopened.store.sendingItems().map { text($0.content) } == (1...25).map { "offline \($0)" })
            server = try await InProcessServer.start(port: port, dataDirectory: data)
            phases.mark("restart")
            await reopened.connect()
            try await eventually(timeout: .seconds(30)) { try reopened.store.sendingItems().isEmpty }
            phases.mark("drain")

            let history = try await serverHistory(direct, via: bob)
            #expect(history.map(\.seq) == Array(1...25))
            #expect(history.map { text($0.content) } == (1...25).map { "offline \($0)" })
            let outbox = try reopened.store.outbox()
            #expect(outbox.map(\.state) == (1...25).map { OutboxState.sent(seq: Int64($0)) })
            #expect(try reopened.store.allMessages(in: direct) == history)
            await reopened.disconnect()
            await server.stop()
            phases.mark("stop")
            print("outbox across a kill: \(phases.summary)")
        }

        @Test func chatContextFollowsOwnMessagesFromSendingToReadAndShowsIncomingOnes() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            await alice.connect()
            await bob.connect()
            let aliceChat = await alice.conversations.chat(direct)
            try await aliceChat.load()
            let states = StateLog()
            let updates = await aliceChat.updates()
            let watcher = Task {
                for await update in updates {
                    if case .changes(_, let items) = update, let first = items.first { states.add(first.delivery) }
                }
            }
            try await aliceChat.send(text: "hello bob")
            try await eventually { try bob.store.conversation(direct)?.maxSeq == 1 }
            let bobChat = await bob.conversations.chat(direct)
            try await bobChat.load()
            #expect(await bobChat.items.map { text($0.content) } == ["hello bob"])
            #expect(await bobChat.items.first?.delivery == nil, "others' messages carry no delivery state")
            try await eventually("bob's device acknowledged it") { await aliceChat.items.first?.delivery == .delivered }
            try await bobChat.markRead()
            try await eventually { await aliceChat.items.first?.delivery == .read }
            try await eventually("the watcher gets the update that made it read") { states.all.last == .read }
            #expect(states.all.first == .sending)
            #expect(states.all.contains(.sent))

            try await bobChat.send(text: "hi alice")
            try await eventually { await aliceChat.items.map { text($0.content) } == ["hello bob", "hi alice"] }
            #expect(await aliceChat.items.map(\.seq) == [1, 2])
            watcher.cancel()
            await alice.disconnect()
            await bob.disconnect()
            await server.stop()
        }

        @Test func aReadThatHappenedWhileTheSenderWasOfflineShowsAfterItsNextSync() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            await alice.connect()
            let chat = await alice.conversations.chat(direct)
            try await chat.load()
            try await chat.send(text: "read me while I am away")
            try await eventually { await chat.items.first?.delivery == .sent }
            await alice.disconnect()

            await bob.catchUp()
            try await bob.conversations.markRead(direct, upTo: 1)
            try await Task.sleep(for: .milliseconds(100))
            #expect(await chat.items.first?.delivery == .sent, "no receipt could reach alice")

            await alice.connect()
            try await eventually { await chat.items.first?.delivery == .read }
            #expect(try alice.store.othersReadSeq(direct) == 1)
            await alice.disconnect()
            await server.stop()
        }

        /// `send` starts a flush in the background; the CLI then calls `flush` itself and
        /// reports what happened to the message. That second call must wait for the running
        /// flush, not return at once while the message is still on its way.
        @Test func aFlushCalledWhileAnotherRunsReturnsOnlyOnceTheQueuedMessageWasTried() async throws {
            let server = try await InProcessServer.start()
            let gate = GatedSends()
            let alice = try makeClient(server.url, http: gate)
            let bob = try makeClient(server.url)
            try await signUp(alice, "alice")
            try await signUp(bob, "bob")
            let direct = try await alice.conversations.openDirect(withUsername: "bob").id

            gate.close()
            let item = try await alice.sendQueue.send(text: "through the gate", to: direct)
            try await eventually("the background flush is sending") { gate.held == 1 }
            let second = Task {
                await alice.sendQueue.flush()
                return try alice.store.outboxItem(item.clientMsgId)?.state
            }
            try await Task.sleep(for: .milliseconds(50))
            gate.open()
            #expect(try await second.value == .sent(seq: 1))
            await server.stop()
        }

        /// Passes HTTP through, except message sends, which wait while the gate is closed.
        final class GatedSends: HTTPTransport, @unchecked Sendable {
            private let lock = NSLock()
            private var closed = false
            private var waiting = 0
            private let http = AsyncHTTPTransport(timeout: testHTTPTimeout)

            func close() { lock.withLock { closed = true } }
            func open() { lock.withLock { closed = false } }
            var held: Int { lock.withLock { waiting } }

            func perform(method: String, url: String, headers: [String: String], body: Data?) async throws -> (
                status: Int, body: Data
            ) {
                if url.hasSuffix(Endpoint.sendMessage.path) {
                    lock.withLock { waiting += 1 }
                    while lock.withLock({ closed }) { try await Task.sleep(for: .milliseconds(5)) }
                    lock.withLock { waiting -= 1 }
                }
                return try await http.perform(method: method, url: url, headers: headers, body: body)
            }
        }

        final class StateLog: @unchecked Sendable {
            private let lock = NSLock()
            private var states: [ChatItem.Delivery?] = []
            func add(_ state: ChatItem.Delivery?) { lock.withLock { if states.last != state { states.append(state) } } }
            var all: [ChatItem.Delivery?] { lock.withLock { states } }
        }
    }
}

/// Wall-clock time per named phase of a long test, printed so that a slow phase in CI shows
/// where the time went.
struct PhaseClock {
    private var last = ContinuousClock.now
    private var phases: [String] = []

    mutating func mark(_ name: String) {
        let now = ContinuousClock.now
        phases.append("\(name) \(String(format: "%.2f", Double((now - last).milliseconds) / 1000)) s")
        last = now
    }

    var summary: String { phases.joined(separator: ", ") }
}

/// What a stream showed a test, in order (typists, presences).
final class EntryLog<Entry: Sendable>: Sendable {
    private let entries = Mutex<[Entry]>([])
    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
    var all: [Entry] { entries.withLock { $0 } }
}
