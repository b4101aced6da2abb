import Foundation
import Logging
import NIOCore
import NIOEmbedded
import ParleyCore
import ParleyStore
import Testing

@testable import ParleyServer

/// A slow reader is cut off without slowing anyone else, and close requests overtake data.
@Suite struct OutboundQueueTests {
    @Test func overflowingTheQueueDropsItsFramesAndAsksForASlowConsumerClose() async {
        let queue = OutboundQueue(limit: 3)
        #expect([queue.enqueue("1"), queue.enqueue("2"), queue.enqueue("3")] == [.queued, .queued, .queued])
        #expect(queue.enqueue("4") == .overflowed)
        #expect(await queue.next() == .close(.slowConsumer, reason: "Too far behind; reconnect and sync."))
        #expect(await queue.next() == nil)
        #expect(queue.enqueue("5") == .closing)
    }

    @Test func framesComeOutInOrderAndACloseOvertakesThem() async {
        let queue = OutboundQueue(limit: 10)
        queue.enqueue("a", now: 0)
        queue.enqueue("b", now: 0)
        #expect(await queue.next() == .frame("a", queuedAt: 0))
        queue.close(.sessionRevoked, reason: "bye")
        #expect(await queue.next() == .close(.sessionRevoked, reason: "bye"))
        #expect(await queue.next() == nil)
    }

    @Test func aCloseThatAnswersTheClientLetsTheQueuedErrorOutFirstEvenIfTheReaderEnds() async {
        let queue = OutboundQueue(limit: 10)
        queue.enqueue("error: send an auth frame first", now: 0)
        queue.closeAfterQueued(.unauthenticated, reason: "Not authenticated.")
        #expect(queue.enqueue("later") == .closing)
        queue.finish()
        #expect(await queue.next() == .frame("error: send an auth frame first", queuedAt: 0))
        #expect(await queue.next() == .close(.unauthenticated, reason: "Not authenticated."))
        #expect(await queue.next() == nil)
    }

    @Test func finishingWithoutACloseDropsWhatIsQueued() async {
        let queue = OutboundQueue(limit: 10)
        queue.enqueue("a", now: 0)
        queue.finish()
        #expect(await queue.next() == nil)
    }

    @Test func aWaitingWriterIsWokenByTheNextFrame() async throws {
        let queue = OutboundQueue(limit: 10)
        async let item = queue.next()
        try await Task.sleep(for: .milliseconds(20))
        queue.enqueue("late", now: 7)
        #expect(await item == .frame("late", queuedAt: 7))
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

    @Test func hubHandsASignalToEveryDeviceOfItsRecipientsAsAFrameOfItsType() async throws {
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
        try await fanOut.send(Signal(type: "typing", recipients: [UserID(1)], payload: .object(["conversationId": 7])))
        for device in [phone, laptop] {
            guard case .frame(let text, _)? = await device.queue.next() else {
                Issue.record("no frame")
                continue
            }
            let frame = try JSONText.decode(Frame<JSONValue>.self, from: text)
            #expect(frame.type == "typing")
            #expect(frame.payload == .object(["conversationId": 7]))
        }
        #expect(other.queue.count == 0)
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
