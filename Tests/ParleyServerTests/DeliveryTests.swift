import Foundation
import ParleyCore
import ParleyTesting
import Synchronization
import Testing

/// The delivery promise: every message once, in seq order, across transports, concurrency,
/// dropped sockets and restarts.
@Suite struct DeliveryTests {
    @Test func sameClientMessageIDSentFiveTimesOverHTTPAndWebSocketMakesOneMessage() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let conversation = try await api.createGroup("pair", by: alice, with: [bob])
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let request = SendMessageRequest.text("only once", to: conversation, clientMsgId: "retry-me")

            var responses: [SendMessageResponse] = []
            for attempt in 0..<5 {
                if attempt.isMultiple(of: 2) {
                    responses.append(try await api.call(.post, "/v1/messages", request, token: alice.token))
                } else {
                    responses.append(try await socket.call(.send, request))
                }
            }

            #expect(Set(responses.map(\.message)).count == 1)
            #expect(responses.map(\.duplicate) == [false, true, true, true, true])
            let history = try await api.fullHistory(of: conversation, as: alice)
            #expect(history.map(\.seq) == [1])
            #expect(history.first?.content == .object(["text": .string("only once")]))
            await socket.close()
        }
    }

    @Test func clientMessageIDReusedForAnotherConversationIsRejected() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let first = try await api.createGroup("one", by: alice, with: [bob])
            let second = try await api.createGroup("two", by: alice, with: [bob])
            _ = try await api.sendText("hello", to: first, as: alice, clientMsgId: "id-1")
            await #expect(throws: APIFailure.self) {
                _ = try await api.sendText("hello", to: second, as: alice, clientMsgId: "id-1")
            }
            let failure = try await capture {
                _ = try await api.sendText("hello", to: second, as: alice, clientMsgId: "id-1")
            }
            #expect(failure?.status == 409)
            #expect(failure?.error.code == .clientMessageIDReused)
            #expect(try await api.fullHistory(of: second, as: alice).isEmpty)
        }
    }

    @Test func directConversationIsCreatedOnFirstMessageAndReusedAfter() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let first: SendMessageResponse = try await api.call(
                .post, "/v1/messages",
                SendMessageRequest(toUserId: bob.id, clientMsgId: "a1", kind: .text, content: .object(["text": "hi"])),
                token: alice.token)
            let reply: SendMessageResponse = try await api.call(
                .post, "/v1/messages",
                SendMessageRequest(
                    toUserId: alice.id, clientMsgId: "b1", kind: .text, content: .object(["text": "hey"])),
                token: bob.token)
            let opened: ConversationDetail = try await api.call(
                .post, "/v1/conversations/direct", OpenDirectRequest(userId: bob.id), token: alice.token)
            #expect(first.message.conversationId == reply.message.conversationId)
            #expect(opened.conversation.id == first.message.conversationId)
            #expect(opened.conversation.kind == .direct)
            #expect(opened.conversation.peerId == bob.id)
            #expect([first.message.seq, reply.message.seq] == [1, 2])
        }
    }

    @Test func eightConcurrentSendersIntoOneGroupGetSeqsOneTo1600EachOnce() async throws {
        let senders = 8
        let perSender = 200
        try await withServer { api in
            var users: [TestUser] = []
            for index in 0..<senders { users.append(try await api.signUp("sender\(index)")) }
            let conversation = try await api.createGroup("busy", by: users[0], with: Array(users.dropFirst()))

            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, user) in users.enumerated() {
                    group.addTask {
                        let socket = try await LiveSocket.connect(api.webSocketURL, token: user.token)
                        for number in 0..<perSender {
                            let _: SendMessageResponse = try await socket.call(
                                .send,
                                SendMessageRequest.text(
                                    "\(index)-\(number)", to: conversation, clientMsgId: "s\(index)-\(number)"))
                        }
                        await socket.close()
                    }
                }
                try await group.waitForAll()
            }

            let history = try await api.fullHistory(of: conversation, as: users[0])
            #expect(history.map(\.seq) == Array(1...Int64(senders * perSender)))
            #expect(Set(history.map { "\($0.senderId)/\($0.clientMsgId)" }).count == senders * perSender)
            for user in users {
                let own = history.filter { $0.senderId == user.id }.map(\.clientMsgId)
                let index = users.firstIndex { $0.id == user.id }!
                #expect(own == (0..<perSender).map { "s\(index)-\($0)" }, "a sender's messages keep their send order")
            }
            print("concurrency: \(senders) senders x \(perSender) messages -> seqs 1...\(history.count), all distinct")
        }
    }

    @Test func memberWhoseSocketDroppedCatchesUpEveryMessageExactlyOnce() async throws {
        let total = 300
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            let group = try await api.createGroup("flow", by: alice, with: [bob, carol])
            let direct: ConversationDetail = try await api.call(
                .post, "/v1/conversations/direct", OpenDirectRequest(userId: bob.id), token: carol.token)

            let reader = SyncingClient(api: api, user: bob)
            try await reader.connect()

            let sent = Counter()
            let senders = Task {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    let plan: [(TestUser, ConversationID)] = [(alice, group), (carol, direct.conversation.id)]
                    for (sender, target) in plan {
                        tasks.addTask {
                            let socket = try await LiveSocket.connect(api.webSocketURL, token: sender.token)
                            for number in 0..<(total / 2) {
                                let _: SendMessageResponse = try await socket.call(
                                    .send,
                                    SendMessageRequest.text(
                                        "m\(number)", to: target, clientMsgId: "\(sender.username)-\(number)"))
                                sent.increment()
                                try await Task.sleep(for: .microseconds(300))
                            }
                            await socket.close()
                        }
                    }
                    try await tasks.waitForAll()
                }
            }

            while sent.current < total / 4 { try await Task.sleep(for: .milliseconds(2)) }
            await reader.dropConnection()
            while sent.current < total / 2 { try await Task.sleep(for: .milliseconds(2)) }
            try await reader.connect()
            try await senders.value
            try await Task.sleep(for: .milliseconds(100))
            reader.absorbPushes()
            try await reader.catchUp()

            for conversation in [group, direct.conversation.id] {
                let server = try await api.fullHistory(of: conversation, as: bob)
                let client = reader.timeline(conversation)
                #expect(client.map(\.seq) == Array(1...Int64(total / 2)))
                #expect(client == server)
            }
            #expect(reader.pushedMessages < total, "the drop must have made bob miss pushes")
            print(
                "reconnect: \(total) messages; bob got \(reader.pushedMessages) by push, \(reader.fetchedMessages) by range fetch, "
                    + "\(reader.repeatedDeliveries) repeats absorbed; store holds each seq once")
        }
    }

    @Test func historyAndCursorsSurviveAServerRestartOnTheSameDataDirectory() async throws {
        let directory = temporaryDirectory()
        let (alice, bob, conversation, cursor) = try await withServer(dataDirectory: directory) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let conversation = try await api.createGroup("durable", by: alice, with: [bob])
            for number in 1...20 { _ = try await api.sendText("before \(number)", to: conversation, as: alice) }
            let _: ReadReceipt = try await api.call(
                .post, "/v1/conversations/\(conversation)/read", ReadRequest(seq: 10), token: bob.token)
            let reader = SyncingClient(api: api, user: bob)
            try await reader.catchUp()
            #expect(reader.timeline(conversation).count == 20)
            return (alice, bob, conversation, reader.cursor!)
        }

        try await withServer(dataDirectory: directory) { api in
            let history = try await api.fullHistory(of: conversation, as: bob)
            #expect(history.map(\.seq) == Array(1...20))
            #expect(history.last?.content == .object(["text": .string("before 20")]))

            let unchanged: SyncResponse = try await api.call(.get, "/v1/sync?cursor=\(cursor)", token: bob.token)
            #expect(unchanged.conversations.isEmpty)
            #expect(unchanged.events.isEmpty)

            let next = try await api.sendText("after restart", to: conversation, as: alice)
            #expect(next.message.seq == 21)
            let changed: SyncResponse = try await api.call(.get, "/v1/sync?cursor=\(cursor)", token: bob.token)
            #expect(changed.conversations.map(\.id) == [conversation])
            #expect(changed.conversations.first?.maxSeq == 21)
            #expect(changed.conversations.first?.readSeq == 10)
            #expect(changed.conversations.first?.unreadCount == 11)
        }
    }

    @Test func everyDeviceOfEveryMemberHearsOfSendsAndReads() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice", device: "phone")
            let aliceLaptop = try await api.logIn("alice", device: "laptop")
            let bob = try await api.signUp("bob")
            let conversation = try await api.createGroup("devices", by: alice, with: [bob])
            let phone = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let laptop = try await LiveSocket.connect(api.webSocketURL, token: aliceLaptop.token)
            let bobSocket = try await LiveSocket.connect(api.webSocketURL, token: bob.token)

            let sent: SendMessageResponse = try await phone.call(
                .send, SendMessageRequest.text("from my phone", to: conversation, clientMsgId: "p1"))
            let onLaptop = try await laptop.waitFor { $0.type == "message" }
            let onBob = try await bobSocket.waitFor { $0.type == "message" }
            #expect(try onLaptop.payload(Message.self) == sent.message)
            #expect(try onBob.payload(Message.self) == sent.message)
            try await Task.sleep(for: .milliseconds(50))
            #expect(
                !phone.received.contains { $0.type == "message" }, "the sending device has the ack, not a second copy")

            let receipt: ReadReceipt = try await bobSocket.call(
                .read, ReadRequest(conversationId: conversation, seq: 1))
            #expect(receipt.seq == 1)
            let seenByAlice = try await laptop.waitFor { $0.type == "receipt" }
            #expect(
                try seenByAlice.payload(ReadReceipt.self)
                    == ReadReceipt(conversationId: conversation, userId: bob.id, seq: 1))
            let ownEvent = try await bobSocket.waitFor { $0.type == "event" && $0.text.contains("read.moved") }
            #expect(
                try ownEvent.payload(UserEvent.self).body
                    == .readMoved(ReadMoved(conversationId: conversation, readSeq: 1)))

            let bobView: ConversationDetail = try await api.call(
                .get, "/v1/conversations/\(conversation)", token: bob.token)
            #expect(bobView.conversation.unreadCount == 0)
            for socket in [phone, laptop, bobSocket] { await socket.close() }
        }
    }
}

/// Runs `body` and returns the ``APIFailure`` it threw, or nil.
func capture(_ body: () async throws -> Void) async throws -> APIFailure? {
    do {
        try await body()
        return nil
    } catch let failure as APIFailure {
        return failure
    }
}
