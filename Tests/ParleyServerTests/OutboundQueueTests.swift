import Foundation
import Logging
import NIOCore
import NIOEmbedded
import ParleyCore
import ParleyStore
import Synchronization
import Testing

@testable import ParleyServer

/// A slow reader is cut off without slowing anyone else, and close requests overtake data.
@Suite struct OutboundQueueTests {
    @Test func overflowingTheQueueDropsItsFramesAndAsksForASlowConsumerClose() async {
        let queue = OutboundQueue(limit: 3)
        #expect([queue.enqueue("1"), queue.enqueue("2"), queue.enqueue("3")] == [.queued, .queued, .queued])
        #expect(queue.enqueue("4") == .overflowed)
        #expect(queue.take() == .close(.slowConsumer, reason: "Too far behind; reconnect and sync."))
        #expect(queue.take() == nil)
        #expect(queue.enqueue("5") == .closing)
    }

    @Test func framesComeOutInOrderAndACloseOvertakesThem() async {
        let queue = OutboundQueue(limit: 10)
        queue.enqueue("a", now: 0)
        queue.enqueue("b", now: 0)
        #expect(queue.take() == .frame("a", queuedAt: 0))
        queue.close(.sessionRevoked, reason: "bye")
        #expect(queue.take() == .close(.sessionRevoked, reason: "bye"))
        #expect(queue.take() == nil)
    }

    @Test func aCloseThatAnswersTheClientLetsTheQueuedErrorOutFirstEvenIfTheReaderEnds() async {
        let queue = OutboundQueue(limit: 10)
        queue.enqueue("error: send an auth frame first", now: 0)
        queue.closeAfterQueued(.unauthenticated, reason: "Not authenticated.")
        #expect(queue.enqueue("later") == .closing)
        queue.finish()
        #expect(queue.take() == .frame("error: send an auth frame first", queuedAt: 0))
        #expect(queue.take() == .close(.unauthenticated, reason: "Not authenticated."))
        #expect(queue.take() == nil)
    }

    @Test func finishingWithoutACloseDropsWhatIsQueued() async {
        let queue = OutboundQueue(limit: 10)
        queue.enqueue("a", now: 0)
        queue.finish()
        #expect(queue.take() == nil)
    }

    @Test func aWriterRunsOnlyWhileThereIsSomethingToWrite() {
        let queue = OutboundQueue(limit: 10)
        let starts = Mutex(0)
        queue.enqueue("before", now: 1)
        queue.startWriters { _ in starts.withLock { $0 += 1 } }
        #expect(starts.withLock { $0 } == 1, "work that waited for the socket starts a writer at once")
        queue.enqueue("while writing", now: 2)
        #expect(starts.withLock { $0 } == 1, "a running writer takes it: no second writer")
        #expect(queue.take() == .frame("before", queuedAt: 1))
        #expect(queue.take() == .frame("while writing", queuedAt: 2))
        #expect(queue.take() == nil)
        queue.enqueue("later", now: 3)
        #expect(starts.withLock { $0 } == 2, "the writer stopped when it ran dry; the next frame starts another")
        #expect(queue.take() == .frame("later", queuedAt: 3))
        #expect(queue.take() == nil)
        queue.close(.sessionRevoked, reason: "bye")
        #expect(starts.withLock { $0 } == 3, "a close is work too")
        #expect(queue.take() == .close(.sessionRevoked, reason: "bye"))
        #expect(queue.take() == nil)
        #expect(queue.enqueue("after the close") == .closing)
        #expect(starts.withLock { $0 } == 3, "a closed queue starts no writer")
    }

    @Test func aFrameThatMayWaitDelaysItsWriterUntilWorkThatMayNotArrives() {
        let queue = OutboundQueue(limit: 10)
        let starts = Mutex<[Duration?]>([])
        queue.startWriters { delay in starts.withLock { $0.append(delay) } }
        let later = OutboundQueue.unhurriedDelay
        queue.enqueue("joined 1", now: 1, unhurried: true)
        queue.enqueue("joined 2", now: 2, unhurried: true)
        #expect(starts.withLock { $0 } == [later], "one delayed writer for both")
        queue.enqueue("hello", now: 3)
        #expect(starts.withLock { $0 } == [later, nil], "a frame that may not wait starts it at once")
        queue.enqueue("joined 3", now: 4, unhurried: true)
        queue.enqueue("hi", now: 5)
        #expect(starts.withLock { $0 } == [later, nil], "it is due at once already")
        for (text, at) in [("joined 1", 1), ("joined 2", 2), ("hello", 3), ("joined 3", 4), ("hi", 5)] {
            #expect(queue.take() == .frame(text, queuedAt: UInt64(at)), "in the order queued")
        }
        #expect(queue.take() == nil)
        queue.enqueue("joined 4", now: 6, unhurried: true)
        queue.close(.sessionRevoked, reason: "bye")
        #expect(starts.withLock { $0 } == [later, nil, later, nil], "nor does a close wait")
        #expect(queue.take() == .close(.sessionRevoked, reason: "bye"))
    }

    @Test func aFinishedQueueStartsNoWriterAndDropsWhatItCannotWrite() {
        let queue = OutboundQueue(limit: 10)
        let starts = Mutex(0)
        queue.startWriters { _ in starts.withLock { $0 += 1 } }
        queue.enqueue("a", now: 0)
        #expect(queue.take() == .frame("a", queuedAt: 0))
        queue.enqueue("b", now: 0)  // the writer, still running, has not taken it yet
        queue.finish()
        #expect(queue.count == 0, "no close to write them before: the frames go")
        #expect(queue.take() == nil)
        #expect(queue.enqueue("c") == .closing)
        queue.close(.sessionRevoked, reason: "bye")
        #expect(queue.take() == nil)
        #expect(starts.withLock { $0 } == 1)
    }

    @Test func afterAFailedWriteNothingMoreGoesOutNotEvenTheClose() async {
        let queue = OutboundQueue(limit: 10)
        queue.startWriters { _ in }
        queue.enqueue("error: send an auth frame first", now: 0)
        queue.enqueue("never written", now: 0)
        queue.closeAfterQueued(.unauthenticated, reason: "Not authenticated.")
        #expect(queue.take() == .frame("error: send an auth frame first", queuedAt: 0))
        queue.abandon()  // writing it failed
        #expect(queue.take() == nil)
    }

    /// Producers on many threads, one writer at a time: every frame is written once, each
    /// producer's in the order it queued them, and no wake-up is lost.
    @Test func concurrentProducersLoseNoFrameAndNeverRunTwoWriters() async throws {
        let producers = 8
        let perProducer = 500
        let queue = OutboundQueue(limit: producers * perProducer)
        let socket = CountingSocket()
        queue.startWriters { _ in
            Task { while let item = queue.take() { socket.write(item) } }
        }
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for index in 0..<perProducer {
                        queue.enqueue("\(producer):\(index)")
                        if index % 50 == 0 { await Task.yield() }
                    }
                }
            }
        }
        for _ in 0..<500 where socket.written.count < producers * perProducer {
            try await Task.sleep(for: .milliseconds(10))
        }
        let written = socket.written
        #expect(written.count == producers * perProducer)
        for producer in 0..<producers {
            let mine = written.filter { $0.hasPrefix("\(producer):") }
            #expect(mine == (0..<perProducer).map { "\(producer):\($0)" })
        }
        #expect(socket.mostWritersAtOnce == 1)
    }

    /// Records what writers take, and how many wrote at once.
    final class CountingSocket: Sendable {
        private struct State {
            var written: [String] = []
            var writing = 0
            var mostAtOnce = 0
        }
        private let state = Mutex(State())

        var written: [String] { state.withLock { $0.written } }
        var mostWritersAtOnce: Int { state.withLock { $0.mostAtOnce } }

        func write(_ item: OutboundQueue.Item) {
            guard case .frame(let text, _) = item else { return }
            state.withLock {
                $0.writing += 1
                $0.mostAtOnce = max($0.mostAtOnce, $0.writing)
            }
            state.withLock {
                $0.written.append(text)
                $0.writing -= 1
            }
        }
    }

    @Test func hubFanOutSkipsTheOriginAndCutsOffOnlyTheStuckConnection() throws {
        var configuration = ServerConfiguration()
        configuration.outboundQueueLimit = 2
        let feed = LocalFanOut()
        let metrics = ServerMetrics()
        let hub = ConnectionHub(
            fanOut: feed, configuration: configuration, metrics: metrics, logger: Logger(label: "t"))
        let stuck = GatewayConnection(tag: hub.makeTag(), queueLimit: 2)
        let healthy = GatewayConnection(tag: hub.makeTag(), queueLimit: 100)
        let origin = GatewayConnection(tag: hub.makeTag(), queueLimit: 100)
        for (connection, user) in [(stuck, 1), (healthy, 2), (origin, 3)] {
            hub.register(connection)
            hub.attach(connection, as: Identity(userId: UserID(Int64(user)), sessionId: SessionID(Int64(user))))
        }
        for seq in 1...3 {
            let message = Message(
                id: MessageID(Int64(seq)), conversationId: ConversationID(1), seq: Int64(seq), senderId: UserID(3),
                clientMsgId: "c\(seq)", kind: .text, content: .object(["text": "x"]), sentAt: 0)
            feed.deliver(.stored(.message(message, recipients: [UserID(1), UserID(2), UserID(3)], origin: origin.tag)))
        }
        #expect(stuck.queue.isClosing)
        #expect(healthy.queue.count == 3)
        #expect(origin.queue.count == 0, "the sender's own connection gets the ack instead")
        #expect(metrics.text.contains("parley_queue_overflows_total 1"))
        #expect(
            metrics.text.contains("parley_deliveries_total 5"),
            "2 + 2 + 1: the stuck socket took two before it overflowed")
    }

    /// A token is checked while its socket may close: a connection the hub let go of is not
    /// attached after all, or its user's pushes would go to a dead queue for ever.
    @Test func hubAttachesNoConnectionThatClosedWhileItsTokenWasChecked() {
        let metrics = ServerMetrics()
        let hub = ConnectionHub(
            fanOut: LocalFanOut(), configuration: ServerConfiguration(), metrics: metrics, logger: Logger(label: "t"))
        let identity = Identity(userId: UserID(1), sessionId: SessionID(1))
        let closed = GatewayConnection(tag: hub.makeTag(), queueLimit: 8)
        hub.register(closed)
        hub.unregister(closed)
        hub.unregister(closed)
        #expect(!hub.attach(closed, as: identity))
        #expect(closed.identity == nil)
        #expect(hub.connectionCount == 0)
        let open = GatewayConnection(tag: hub.makeTag(), queueLimit: 8)
        hub.register(open)
        #expect(hub.attach(open, as: identity))
        hub.deliver(.signal(Signal(type: "typing", recipients: [UserID(1)], payload: .object([:]))))
        #expect(closed.queue.count == 0)
        #expect(open.queue.count == 1)
    }

    /// A hub on its own feed, with user 1 on two devices and user 2 on one (the feed holds
    /// the hub only weakly, so this keeps it).
    private struct TwoUsersOnAHub {
        let fanOut: LocalFanOut
        let hub: ConnectionHub
        let phone, laptop, other: GatewayConnection
    }

    private static func hubWithTwoUsers() -> TwoUsersOnAHub {
        let fanOut = LocalFanOut()
        let hub = ConnectionHub(
            fanOut: fanOut, configuration: ServerConfiguration(), metrics: ServerMetrics(), logger: Logger(label: "t"))
        let phone = GatewayConnection(tag: hub.makeTag(), queueLimit: 10)
        let laptop = GatewayConnection(tag: hub.makeTag(), queueLimit: 10)
        let other = GatewayConnection(tag: hub.makeTag(), queueLimit: 10)
        for (connection, user) in [(phone, 1), (laptop, 1), (other, 2)] {
            hub.register(connection)
            hub.attach(connection, as: Identity(userId: UserID(Int64(user)), sessionId: SessionID(Int64(user))))
        }
        return TwoUsersOnAHub(fanOut: fanOut, hub: hub, phone: phone, laptop: laptop, other: other)
    }

    /// The store hands over each event as the text it wrote; every device of its user gets
    /// that text as the frame's payload, in the stream's order, and nobody else gets it.
    @Test func hubFramesEachStoredEventAsWrittenForItsUsersDevicesInOrder() throws {
        let users = Self.hubWithTwoUsers()
        let events = [
            UserEvent(seq: 4, at: 1, ConversationAdded(conversationId: ConversationID(9)).body),
            UserEvent(
                seq: 5, at: 2,
                ConversationRemoved(conversationId: ConversationID(9), reason: .left, removedBy: UserID(1), lastSeq: 3)
                    .body),
        ]
        let stored = try events.map { try JSONText.encode($0) }
        users.fanOut.deliver(.stored(.events([UserID(1): stored, UserID(3): stored])))
        for device in [users.phone, users.laptop] {
            for (event, text) in zip(events, stored) {
                guard case .frame(let frameText, _)? = device.queue.take() else {
                    Issue.record("no frame")
                    continue
                }
                #expect(frameText == #"{"type":"event","payload":"# + text + "}")
                let frame = try JSONText.decode(Frame<UserEvent>.self, from: frameText)
                #expect(frame.type == "event" && frame.payload == event)
            }
            #expect(device.queue.count == 0)
        }
        #expect(users.other.queue.count == 0)
    }

    /// A system notice to more than a crowd of members may wait for company on each socket;
    /// a notice to fewer, and any other message, may not.
    @Test func hubQueuesOnlyANoticeToACrowdUnhurried() {
        let users = Self.hubWithTwoUsers()
        let starts = Mutex<[Duration?]>([])
        users.other.queue.startWriters { delay in starts.withLock { $0.append(delay) } }
        let crowd = (1...Int64(ConnectionHub.crowd + 1)).map { UserID($0) }
        let notice: JSONValue = ["event": "member.joined", "actorId": 1, "userIds": [2]]
        for (recipients, kind, content) in [
            (crowd, MessageKind.system, notice), (Array(crowd.prefix(ConnectionHub.crowd)), .system, notice),
            (crowd, .text, ["text": "hi"]),
        ] {
            let message = Message(
                id: MessageID(1), conversationId: ConversationID(9), seq: 1, senderId: UserID(1), clientMsgId: "m",
                kind: kind, content: content, sentAt: 1)
            users.fanOut.deliver(.stored(.message(message, recipients: recipients, origin: nil)))
            while users.other.queue.take() != nil {}
        }
        #expect(starts.withLock { $0 } == [OutboundQueue.unhurriedDelay, nil, nil])
    }

    @Test func hubHandsASignalToEveryDeviceOfItsRecipientsAsAFrameOfItsType() async throws {
        let users = Self.hubWithTwoUsers()
        try await users.fanOut.send(
            Signal(type: "typing", recipients: [UserID(1)], payload: .object(["conversationId": 7])))
        for device in [users.phone, users.laptop] {
            guard case .frame(let text, _)? = device.queue.take() else {
                Issue.record("no frame")
                continue
            }
            let frame = try JSONText.decode(Frame<JSONValue>.self, from: text)
            #expect(frame.type == "typing")
            #expect(frame.payload == .object(["conversationId": 7]))
        }
        #expect(users.other.queue.count == 0)
    }

    @Test func theSweepClosesSilentAndStuckSocketsButNotOneThatSpokeAfterItReadTheClock() {
        var configuration = ServerConfiguration()
        configuration.heartbeatTimeout = .seconds(60)
        configuration.writeTimeout = .seconds(30)
        let metrics = ServerMetrics()
        let hub = ConnectionHub(
            fanOut: LocalFanOut(), configuration: configuration, metrics: metrics, logger: Logger(label: "t"))
        let now: UInt64 = 1_000_000_000_000
        let second: UInt64 = 1_000_000_000
        let busy = GatewayConnection(tag: hub.makeTag(), queueLimit: 10, now: now - second)
        let silent = GatewayConnection(tag: hub.makeTag(), queueLimit: 10, now: now - 100 * second)
        let stuck = GatewayConnection(tag: hub.makeTag(), queueLimit: 10, now: now - 100 * second)
        let behind = GatewayConnection(tag: hub.makeTag(), queueLimit: 10, now: now - 100 * second)
        for (index, connection) in [busy, silent, stuck, behind].enumerated() {
            hub.register(connection)
            hub.attach(
                connection, as: Identity(userId: UserID(Int64(index + 1)), sessionId: SessionID(Int64(index + 1))))
        }
        busy.activity.noteRead(now: now + 5)  // a frame that arrived after the sweep read the clock
        silent.activity.noteRead(now: now - 61 * second)
        silent.activity.noteReadRequested(now: now - 61 * second)
        stuck.activity.noteRead(now: now)
        stuck.writeBegan(now: now - 31 * second)
        // The server's reader fell behind and the channel stopped asking for bytes after this one.
        behind.activity.noteRead(now: now - 90 * second)
        hub.sweep(now: now)
        #expect(!busy.queue.isClosing, "a read later than the sweep's clock is no time elapsed, not 584 years")
        #expect(silent.queue.isClosing)
        #expect(metrics.text.contains("parley_stuck_write_aborts_total 1"))
        #expect(!stuck.queue.isClosing, "a stuck socket is aborted below the WebSocket layer, not asked to close")
        #expect(!behind.queue.isClosing, "a client whose frames wait for a reader that fell behind is not silent")
        behind.activity.noteReadRequested(now: now - 61 * second)
        hub.sweep(now: now)
        #expect(behind.queue.isClosing, "once the server reads again, silence counts from then")
    }

    /// A socket silent by the sweep's clock is judged again on its event loop, after the loop
    /// read what was waiting: a loop busy with a flood is not the client's silence.
    @Test func aSilenceIsConfirmedOnTheSocketsEventLoopAfterItReadWhatWasWaiting() throws {
        var configuration = ServerConfiguration()
        configuration.heartbeatTimeout = .seconds(5)
        let hub = ConnectionHub(
            fanOut: LocalFanOut(), configuration: configuration, metrics: ServerMetrics(), logger: Logger(label: "t"))
        let second: UInt64 = 1_000_000_000
        let now = NIODeadline.now().uptimeNanoseconds
        let channels = [EmbeddedChannel(), EmbeddedChannel()]
        let (waiting, silent) = (
            GatewayConnection(tag: hub.makeTag(), queueLimit: 10, channel: channels[0], now: now - 10 * second),
            GatewayConnection(tag: hub.makeTag(), queueLimit: 10, channel: channels[1], now: now - 10 * second)
        )
        for (index, connection) in [waiting, silent].enumerated() {
            hub.register(connection)
            hub.attach(
                connection, as: Identity(userId: UserID(Int64(index + 1)), sessionId: SessionID(Int64(index + 1))))
        }
        hub.sweep(now: now)
        #expect(!waiting.queue.isClosing && !silent.queue.isClosing, "not before their loops had their say")
        waiting.activity.noteRead()  // the loop, free again, reads the ping that waited in the kernel
        for channel in channels { channel.embeddedEventLoop.run() }
        #expect(!waiting.queue.isClosing, "its ping was there all along")
        #expect(silent.queue.isClosing, "nothing came: silent past the heartbeat")
    }
}
