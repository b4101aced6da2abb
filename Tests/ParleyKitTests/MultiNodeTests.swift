import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import ParleyTesting
import Synchronization
import Testing

/// Several server nodes on one PostgreSQL (SPEC 6). Needs `PARLEY_TEST_POSTGRES_URL`.
extension LiveServerSuites {
    @Suite(.serialized, .enabled(if: TestBackend.postgresURL != nil, "needs PostgreSQL: set PARLEY_TEST_POSTGRES_URL"))
    struct MultiNodeTests {
        static func node(schema: String, port: Int? = nil) async throws -> InProcessServer {
            try await InProcessServer.start(port: port) {
                $0.databaseURL = TestBackend.postgresURL
                $0.databaseSchema = schema
                // Nodes share their files through the object store, when one runs.
                $0.files.location = TestBackend.s3URL
            }
        }

        static func freshSchema() -> String {
            "m_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        }

        @Test func threeNodesDeliverEverythingOnceInOrderAndSurviveANodeStopping() async throws {
            let perClient = 150
            let schema = Self.freshSchema()
            // Started together: each applies migrations under the advisory lock, once.
            async let first = Self.node(schema: schema)
            async let second = Self.node(schema: schema)
            async let third = Self.node(schema: schema)
            let nodes = try await [first, second, third]
            let names = ["ann", "bob", "cyd", "dia", "eda", "flo"]
            var proxies: [ChaosProxy] = []
            var clients: [ParleyClient] = []
            for (index, name) in names.enumerated() {
                let proxy = try await ChaosProxy.start(upstreamPort: nodes[index % 3].port)
                let client = try makeClient("http://127.0.0.1:\(proxy.port)", device: name)
                try await signUp(client, name)
                proxies.append(proxy)
                clients.append(client)
            }
            let group = try await clients[0].conversations.createGroup(
                name: "all-nodes", usernames: Array(names.dropFirst())
            ).id
            let pairs = [
                try await clients[0].conversations.openDirect(withUsername: "bob").id,
                try await clients[2].conversations.openDirect(withUsername: "dia").id,
                try await clients[4].conversations.openDirect(withUsername: "flo").id,
            ]
            for client in clients { await client.connect() }

            let participants = clients
            let queued = Counter()
            let senders = Task {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    for (index, client) in participants.enumerated() {
                        tasks.addTask {
                            for number in 0..<perClient {
                                try await client.sendQueue.send(
                                    text: "\(names[index])-\(number)", to: number % 2 == 0 ? group : pairs[index / 2])
                                queued.increment()
                            }
                        }
                    }
                    try await tasks.waitForAll()
                }
            }
            try await eventually(timeout: .seconds(60)) { queued.current >= perClient * names.count / 2 }
            // Node 1 goes away; its clients' load balancer sends them to node 2.
            for index in names.indices where index % 3 == 1 { proxies[index].setUpstreamPort(nodes[2].port) }
            await nodes[1].stop()
            try await senders.value
            try await eventually("every outbox drained", timeout: .seconds(120)) {
                try participants.allSatisfy { try $0.store.sendingItems().isEmpty }
            }
            for client in clients { await client.catchUp() }

            var compared = 0
            let plan: [(ConversationID, [Int], Int)] =
                [(group, Array(0..<6), perClient / 2 * 6)]
                + pairs.enumerated().map { ($1, [$0 * 2, $0 * 2 + 1], perClient / 2 * 2) }
            for (conversation, members, expected) in plan {
                let truth = try await serverHistory(conversation, via: clients[members[0]])
                #expect(truth.map(\.seq) == Array(1...Int64(expected)))
                #expect(Set(truth.map { "\($0.senderId)/\($0.clientMsgId)" }).count == expected)
                for member in members {
                    let held = try clients[member].store.allMessages(in: conversation)
                    #expect(held == truth, "\(names[member]) holds every message of \(conversation) once, in seq order")
                    compared += held.count
                }
            }
            print(
                "multi-node: 3 nodes on one PostgreSQL, \(names.count * perClient) messages, node 1 stopped mid-run; \(compared) stored messages compared"
            )
            for client in clients { await client.disconnect() }
            for proxy in proxies { await proxy.stop() }
            for index in [0, 2] { await nodes[index].stop() }
        }

        /// Two nodes on a fresh schema, with alice signed up on the first and bob on the second.
        static func aliceAndBobOnTwoNodes() async throws
            -> (schema: String, nodes: [InProcessServer], alice: ParleyClient, bob: ParleyClient)
        {
            let schema = Self.freshSchema()
            async let first = Self.node(schema: schema)
            async let second = Self.node(schema: schema)
            let nodes = try await [first, second]
            let alice = try makeClient(nodes[0].url)
            let bob = try makeClient(nodes[1].url)
            try await signUp(alice, "alice")
            try await signUp(bob, "bob")
            return (schema, nodes, alice, bob)
        }

        @Test func aRenameOnOneNodeReachesMembersOnAnother() async throws {
            let (_, nodes, alice, bob) = try await Self.aliceAndBobOnTwoNodes()
            let group = try await alice.conversations.createGroup(name: "before", usernames: ["bob"]).id
            await bob.connect()
            await bob.catchUp()
            try await alice.conversations.rename(group, to: "after")
            try await eventually("bob, on the other node, hears conversation.updated") {
                (try? bob.store.conversation(group)?.name) == "after"
            }
            await bob.disconnect()
            for node in nodes { await node.stop() }
        }

        /// A message reaches a member on another node exactly as sent, live: a short one, one
        /// whose text holds the digits the sending node's NOTIFY template uses as placeholders,
        /// and one larger than a NOTIFY payload may be (9,000 bytes of text).
        @Test func everyMessageReachesAnotherNodeExactlyAsSent() async throws {
            let (_, nodes, alice, bob) = try await Self.aliceAndBobOnTwoNodes()
            let direct = try await alice.conversations.openDirect(withUsername: "bob").id
            await bob.connect()
            await bob.catchUp()
            await alice.connect()
            let bodies = ["short", "\(Int64.min) and \(Int64.min + 1)", String(repeating: "北", count: 3_000)]
            var seqs: [Int64] = []
            for body in bodies {
                // Bounded: a send the server keeps failing is retried, never settled.
                let handle = try await alice.sendQueue.send(text: body, to: direct)
                try await eventually("sent: \(body.prefix(20))") { await handle.state.isSettled }
                guard case .sent(let seq) = await handle.state else {
                    Issue.record("not sent: \(body.prefix(20))")
                    return
                }
                seqs.append(seq)
            }
            try await eventually("bob, on the other node, has all three") {
                seqs.allSatisfy { (try? bob.store.message(in: direct, seq: $0)) != nil }
            }
            for (seq, body) in zip(seqs, bodies) {
                #expect(try bob.store.message(in: direct, seq: seq).map { text($0.content) } == body)
            }
            await alice.disconnect()
            await bob.disconnect()
            for node in nodes { await node.stop() }
        }

        /// What is sent, edited or recalled through one node is found, or no longer found,
        /// through another: the index is written in the message's own transaction.
        @Test func aMessageSentOnOneNodeIsFoundOnAnother() async throws {
            let (_, nodes, alice, bob) = try await Self.aliceAndBobOnTwoNodes()
            let direct = try await alice.conversations.openDirect(withUsername: "bob").id
            await alice.connect()
            guard case .sent(let seq) = try await alice.sendQueue.send(text: "明天去北京", to: direct).settled() else {
                Issue.record("not sent")
                return
            }
            let query = try MessageSearchQuery("北京")
            #expect(try await bob.search.server(query).hits.map(\.message.seq) == [seq])
            let sent = try #require(try alice.store.message(in: direct, seq: seq))
            _ = try await alice.messages.recall(sent)
            #expect(try await bob.search.server(query).hits.isEmpty)
            await alice.disconnect()
            for node in nodes { await node.stop() }
        }

        /// A friend request made on one node reaches the other user live on another, and a
        /// block made there refuses a send through the first.
        @Test func contactsOnOneNodeReachAndBindAnother() async throws {
            let (_, nodes, alice, bob) = try await Self.aliceAndBobOnTwoNodes()
            let bobId = try #require(await bob.session.currentUser?.id)
            let aliceId = try #require(await alice.session.currentUser?.id)
            for client in [alice, bob] { await client.catchUp() }
            await bob.connect()
            let request = try await alice.contacts.sendRequest(to: bobId, message: "from node one")
            try await eventually("bob, on the other node, sees the request") {
                (try? await bob.contacts.book().incoming.map(\.id)) == [request.id]
            }
            try await bob.contacts.accept(request.id)
            await alice.catchUp()
            #expect(try await alice.contacts.book().friends.map(\.user.id) == [bobId])
            try await bob.contacts.block(aliceId)
            let direct = try await alice.conversations.openDirect(withUsername: "bob").id
            let refused = await #expect(throws: ParleyError.self) {
                let _: SendMessageResponse = try await alice.session.http(
                    .sendMessage, body: SendMessageRequest.text("hi", to: direct, clientMsgId: "m1"))
            }
            #expect(refused?.code == .blocked)
            await bob.disconnect()
            for node in nodes { await node.stop() }
        }

        /// Membership changed on one node reaches sends delivered by another: a member removed
        /// there gets nothing more, and one added there gets the next message (each node keeps
        /// its own member-list cache, keyed by the version every change moves).
        @Test func membersRemovedOrAddedOnOneNodeAreHonouredByAnother() async throws {
            let (_, nodes, alice, bob) = try await Self.aliceAndBobOnTwoNodes()
            let (cyd, dan) = (try makeClient(nodes[1].url), try makeClient(nodes[1].url))
            try await signUp(cyd, "cyd")
            try await signUp(dan, "dan")
            let group = try await alice.conversations.createGroup(name: "nodes", usernames: ["bob", "cyd"]).id
            for client in [alice, bob, cyd, dan] { await client.connect() }
            try await alice.sendQueue.send(text: "one", to: group).settled()
            try await eventually("node 2 delivers to bob and cyd") {
                try bob.store.conversation(group)?.maxSeq == 1 && cyd.store.conversation(group)?.maxSeq == 1
            }

            try await alice.groups.remove(try await id(of: bob), from: group)
            try await alice.groups.add([try await id(of: dan)], to: group)
            try await alice.sendQueue.send(text: "two", to: group).settled()
            try await eventually("cyd and dan, on node 2, get the message after the changes") {
                try cyd.store.allMessages(in: group).contains { text($0.content) == "two" }
                    && dan.store.allMessages(in: group).contains { text($0.content) == "two" }
            }
            try await eventually("bob's device marks the group left") { try bob.store.hasLeft(group) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(!(try bob.store.allMessages(in: group).contains { text($0.content) == "two" }))
            for client in [alice, bob, cyd, dan] { await client.disconnect() }
            for node in nodes { await node.stop() }
        }

        /// A recall, a delivered receipt and a mention made through one node reach a member
        /// connected to another, live.
        @Test func messageActionsOnOneNodeReachMembersOnAnother() async throws {
            let (_, nodes, alice, bob) = try await Self.aliceAndBobOnTwoNodes()
            let group = try await alice.conversations.createGroup(name: "nodes", usernames: ["bob"]).id
            for client in [alice, bob] { await client.connect() }
            guard case .sent(let seq) = try await alice.sendQueue.send(text: "secret", to: group).settled() else {
                Issue.record("the send did not commit")
                return
            }
            try await eventually("bob, on node 2, gets it") { try bob.store.message(in: group, seq: seq) != nil }
            _ = try await alice.messages.recall(try #require(try alice.store.message(in: group, seq: seq)))
            try await eventually("bob's device replaces it with the recalled form") {
                try bob.store.message(in: group, seq: seq)?.kind == .recalled
            }
            #expect(!(try bob.store.allMessages(in: group).contains { text($0.content) == "secret" }))

            let direct = try await alice.conversations.openDirect(withUsername: "bob").id
            guard case .sent(let directSeq) = try await alice.sendQueue.send(text: "hi", to: direct).settled() else {
                Issue.record("the direct send did not commit")
                return
            }
            try await eventually("bob's device acknowledges delivery, and alice on node 1 hears it") {
                try alice.store.othersDeliveredSeq(direct) == directSeq
            }
            for client in [alice, bob] { await client.disconnect() }
            for node in nodes { await node.stop() }
        }

        @Test func typingOnOneNodeShowsOnAnotherAndNothingIsStored() async throws {
            let (schema, nodes, alice, bob) = try await Self.aliceAndBobOnTwoNodes()
            let direct = try await alice.conversations.openDirect(withUsername: "bob").id
            for client in [alice, bob] { await client.connect() }
            try await eventually { await alice.connection.status == .connected }
            try await eventually { await bob.connection.status == .connected }
            let seen = EntryLog<[UserID]>()
            let watching = Task { for await typists in await bob.typing.typists(in: direct) { seen.append(typists) } }
            try await eventually { seen.all == [[]] }
            await alice.typing.userIsTyping(in: direct)
            let aliceId = try #require(await alice.session.currentUser?.id)
            try await eventually("bob, on the other node, sees alice typing") { seen.all.last == [aliceId] }
            await alice.typing.userStoppedTyping(in: direct)
            try await eventually { seen.all.last == [] }
            let stored = try await TestBackend.psql("SELECT count(*) FROM \(schema).user_events")
            #expect(stored == "2", "the two conversation.added events of the direct conversation, nothing for typing")
            watching.cancel()
            for client in [alice, bob] { await client.disconnect() }
            for node in nodes { await node.stop() }
        }

        /// Presence holds across nodes: bob's device on one node makes him online for alice on
        /// the other; a second device on alice's node changes nothing; he is offline only when
        /// his last device, on either node, has left.
        @Test func presenceOnOneNodeIsSeenOnAnother() async throws {
            let (schema, nodes, alice, bob) = try await Self.aliceAndBobOnTwoNodes()
            let bobId = try #require(await bob.session.currentUser?.id)
            let request = try await alice.contacts.sendRequest(to: bobId)
            try await bob.contacts.accept(request.id)
            await alice.connect()
            try await eventually { await alice.connection.status == .connected }
            let heard = EntryLog<Presence>()
            let listening = Task { for await presence in await alice.presence.updates() { heard.append(presence) } }
            await bob.connect()
            try await eventually("alice, on the other node, hears bob come online") {
                heard.all.last?.status == .online
            }
            let bobOnAlicesNode = try makeClient(nodes[0].url, device: "laptop")
            try await bobOnAlicesNode.session.login("bob", password: "Passw0rd!")
            await bobOnAlicesNode.connect()
            try await eventually { await bobOnAlicesNode.connection.status == .connected }
            try await eventually("both nodes hold a device of bob") {
                (try? await TestBackend.psql("SELECT count(*) FROM \(schema).presence WHERE user_id = \(bobId)")) == "2"
            }
            await bob.disconnect()
            try await Task.sleep(for: .seconds(2))
            #expect(
                heard.all.map(\.status) == [.offline, .online],
                "before connecting, then online; one device left, one still there on the other node")
            await bobOnAlicesNode.disconnect()
            try await eventually("bob goes offline with his last device") { heard.all.last?.status == .offline }
            #expect(try await alice.presence.refresh().map(\.status) == [.offline])
            listening.cancel()
            await alice.disconnect()
            for node in nodes { await node.stop() }
        }

        @Test func theSameClientMessageIDSentToTwoNodesMakesOneMessage() async throws {
            let schema = Self.freshSchema()
            let east = try await Self.node(schema: schema)
            let west = try await Self.node(schema: schema)
            let viaEast = try makeClient(east.url)
            let viaWest = try makeClient(west.url)
            try await signUp(viaEast, "alice")
            try await viaWest.session.login("alice", password: "Passw0rd!")
            let bob = try makeClient(west.url)
            try await signUp(bob, "bob")
            let direct = try await viaEast.conversations.openDirect(withUsername: "bob").id
            let request = SendMessageRequest.text("once, whichever node", to: direct, clientMsgId: "cross-node-1")
            async let fromEast: SendMessageResponse = viaEast.session.http(.sendMessage, body: request)
            async let fromWest: SendMessageResponse = viaWest.session.http(.sendMessage, body: request)
            let answers = try await [fromEast, fromWest]
            #expect(answers[0].message == answers[1].message)
            #expect(answers.filter(\.duplicate).count == 1)
            #expect(try await serverHistory(direct, via: bob).map(\.clientMsgId) == ["cross-node-1"])
            await east.stop()
            await west.stop()
        }

        /// A node's fan-out holds two connections of its own: the LISTEN and the one it loads
        /// what it hears on. Losing either may lose changes, so its sockets are told to resync.
        @Test(arguments: ["listen", "load"])
        func aNodeThatLosesAFanOutConnectionTellsItsClientsToResync(connection: String) async throws {
            let schema = Self.freshSchema()
            let node = try await Self.node(schema: schema)
            let alice = try makeClient(node.url)
            try await signUp(alice, "alice")
            let socket = try await NIOWebSocketTransport().open(
                url: node.url.replacingOccurrences(of: "http", with: "ws") + "/v1/ws")
            let token = try await alice.api.call(
                .login, body: LoginRequest(login: "alice", password: "Passw0rd!"), as: TokenResponse.self
            ).accessToken
            try await socket.send(#"{"type":"auth","id":"a","payload":{"token":"\#(token)"}}"#)
            var events = socket.events.makeAsyncIterator()
            let ready = await events.next()
            guard case .text(let text)? = ready, text.contains("ready") else {
                Issue.record("not ready: \(String(describing: ready))")
                return
            }

            let terminated = try await terminateConnections("parley/\(schema)/\(connection)")
            #expect(terminated == 1, "the node's one \(connection) connection")
            guard terminated > 0 else { return }
            var closeCode: Int?
            while let event = await events.next() {
                if case .closed(let code) = event {
                    closeCode = code
                    break
                }
            }
            #expect(closeCode == CloseCode.resyncRequired.rawValue)
            try await eventually("the node listens again and serves") {
                (try? await alice.session.http(.getMe, as: Account.self)) != nil
            }
            await node.stop()
        }

        /// Kills the PostgreSQL backends whose `application_name` is `name` (a lost
        /// connection) and answers how many there were.
        func terminateConnections(_ name: String) async throws -> Int {
            Int(
                try await TestBackend.psql(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(name)'"
                )) ?? 0
        }
    }
}
