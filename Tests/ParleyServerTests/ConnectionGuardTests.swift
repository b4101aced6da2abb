import NIOCore
import NIOEmbedded
import Testing

@testable import ParleyServer

/// What ``ConnectionGuard`` records for the heartbeat: reads, and whether the handlers above
/// it let the channel ask for more bytes.
@Suite struct ConnectionGuardTests {
    /// Swallows requests for more bytes while `holding`, as the reader's buffer does when
    /// the server falls behind.
    final class Backpressure: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = Any
        var holding = false
        func read(context: ChannelHandlerContext) {
            if !holding { context.read() }
        }
    }

    @Test func aReadHeldBackAboveTheGuardIsNotTheClientsSilence() throws {
        let guardHandler = ConnectionGuard(idleTimeout: .seconds(60), requestTimeout: .seconds(60))
        let backpressure = Backpressure()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([guardHandler, backpressure])
        let activity = guardHandler.upgradedToWebSocket()
        let second: UInt64 = 1_000_000_000

        try channel.writeInbound(ByteBuffer(string: "frame"))
        let read = activity.lastReadAt
        #expect(activity.silence(now: read + 5 * second) == nil, "bytes handed on, and nobody asked for more yet")

        channel.read()
        #expect(activity.silence(now: read + 5 * second).map { $0 >= 4 * second } == true, "asked, and nothing came")

        try channel.writeInbound(ByteBuffer(string: "another frame"))
        backpressure.holding = true
        channel.read()
        let later = activity.lastReadAt
        #expect(activity.silence(now: later + 60 * second) == nil, "the reader is behind: not the client's silence")
        backpressure.holding = false
        channel.read()
        #expect(activity.silence(now: later + 60 * second) != nil, "once the reader asks again, silence counts")
        _ = try channel.finish()
    }
}
