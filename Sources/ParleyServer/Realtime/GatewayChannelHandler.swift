import Foundation
import NIOCore
import NIOWebSocket
import ParleyCore

/// Serves one WebSocket on its channel's event loop: it speaks RFC 6455 (fragments, control
/// frames, the closing handshake), hands whole text frames to the ``WebSocketGateway`` to
/// answer, and writes what the connection's ``OutboundQueue`` holds.
///
/// No task belongs to the socket. One answers its requests while it has some
/// (``RequestInbox``), and writes run on the event loop, all frames queued since the last
/// write in one flush. While the inbox is backlogged the handler holds back reads, so a
/// client that floods its socket waits in its own TCP window; while the socket cannot take
/// more bytes (the peer is not reading), frames wait in the queue, which closes the socket
/// when it overflows.
///
/// NIO's frame decoder below rejects frames larger than ``Limits/maxTransportFrameBytes``
/// (1009) and malformed control frames (1002) itself.
final class GatewayChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = Never
    typealias OutboundOut = WebSocketFrame

    private let gateway: WebSocketGateway
    private let token: String?
    private var connection: GatewayConnection?
    /// The text or binary frame whose fragments are arriving, as far as it came.
    private var fragments: (opcode: WebSocketOpcode, data: ByteBuffer)?
    /// Whether this side sent its close frame: nothing else goes out after it.
    private var closeSent = false
    /// Flushes handed to the socket and not yet written whole.
    private var unfinishedFlushes = 0
    /// The data of the last control ping not yet answered: a pong waits while the socket
    /// takes no more bytes, and only the latest ping's is owed (RFC 6455 §5.5.3).
    private var pongOwed: ByteBuffer?
    /// Where the queue's text frames are written, already framed: below NIO's frame encoder,
    /// which would give every frame a second buffer for its header.
    private var framedOut: ChannelHandlerContext?

    /// - Parameter token: The token the upgrade request carried, to authenticate with first.
    init(gateway: WebSocketGateway, token: String?) {
        self.gateway = gateway
        self.token = token
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let activity: ConnectionActivity
        do {
            activity = try channel.pipeline.syncOperations.handler(type: ConnectionGuard.self).upgradedToWebSocket()
        } catch {
            // Never in the server, where `GuardedChildChannel` puts the guard first; without
            // it the socket still works, with its silence counted from now on.
            activity = ConnectionActivity()
        }
        let connection = GatewayConnection(
            tag: gateway.hub.makeTag(), queueLimit: gateway.configuration.outboundQueueLimit, activity: activity,
            channel: channel)
        self.connection = connection
        framedOut = (try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)) ?? context
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        connection.queue.startWriters { delay in
            let pass: @Sendable () -> Void = {
                let (handler, context) = loopBound.value
                handler.writeQueued(context)
            }
            if let delay { eventLoop.scheduleTask(in: TimeAmount(delay), pass) } else { eventLoop.execute(pass) }
        }
        gateway.opened(connection, token: token)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let connection { gateway.closed(connection) }
        context.fireChannelInactive()
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let connection else { return }
        let frame = unwrapInboundIn(data)
        guard !closeSent || frame.opcode == .connectionClose else { return }
        // Every client frame is masked (RFC 6455 §5.1); no extension that would set a
        // reserved bit was negotiated.
        guard frame.maskKey != nil, !frame.rsv1, !frame.rsv2, !frame.rsv3 else {
            return fail(.protocolError, context)
        }
        switch frame.opcode {
        case .text, .binary:
            guard fragments == nil else { return fail(.protocolError, context) }
            if frame.fin {
                received(frame.opcode, frame.unmaskedData, on: connection, context)
            } else {
                fragments = (frame.opcode, frame.unmaskedData)
            }
        case .continuation:
            guard case (let opcode, var data)? = fragments else { return fail(.protocolError, context) }
            fragments = nil
            var more = frame.unmaskedData
            guard data.readableBytes + more.readableBytes <= Limits.maxTransportFrameBytes else {
                return fail(.messageTooLarge, context)
            }
            data.writeBuffer(&more)
            if frame.fin {
                received(opcode, data, on: connection, context)
            } else {
                fragments = (opcode, data)
            }
        case .ping:
            pongOwed = frame.unmaskedData
            writeQueued(context)
        case .pong:
            break
        case .connectionClose:
            receivedClose(frame.unmaskedData, context)
        default:
            fail(.protocolError, context)
        }
    }

    /// Hands a whole frame to the gateway; text must be valid UTF-8 (1007 otherwise).
    private func received(
        _ opcode: WebSocketOpcode, _ data: ByteBuffer, on connection: GatewayConnection,
        _ context: ChannelHandlerContext
    ) {
        guard opcode == .text else { return gateway.received(.binary, on: connection) }
        guard let text = Self.validatedText(data) else { return fail(.dataInconsistentWithMessage, context) }
        gateway.received(.text(text), on: connection)
    }

    /// Answers the peer's close frame with one of this side's (1000, or 1002 for a close
    /// frame that breaks the rules) unless this side closed first, and then closes the socket.
    private func receivedClose(_ data: ByteBuffer, _ context: ChannelHandlerContext) {
        if closeSent { return context.close(promise: nil) }
        var data = data
        let code: WebSocketErrorCode
        if data.readableBytes == 0 {
            code = .normalClosure
        } else if let received = data.readInteger(as: UInt16.self), Self.isValidCloseCode(received),
            Self.validatedText(data) != nil
        {
            code = .normalClosure
        } else {
            code = .protocolError
        }
        stopServing(context)
        sendClose(code, reason: "", context).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Closes the socket for a frame that breaks RFC 6455, with `code` and no reason.
    private func fail(_ code: WebSocketErrorCode, _ context: ChannelHandlerContext) {
        fragments = nil
        guard !closeSent else { return }
        stopServing(context)
        sendClose(code, reason: "", context).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Holds back reads while the gateway has more requests waiting than it answers at once.
    func read(context: ChannelHandlerContext) {
        guard connection?.requests.isBacklogged != true else { return }
        context.read()
    }

    // MARK: Writing

    /// Writes an owed pong and what the queue holds while the socket takes more, in one
    /// flush. The queue's frames are framed here, several to a buffer; a buffer is handed to
    /// the socket once it holds ``passBytes`` or more, and the socket's writability is asked
    /// again before the next frame. A close the queue hands out goes last
    /// and ends the writing.
    private func writeQueued(_ context: ChannelHandlerContext) {
        guard let connection, let framedOut, !closeSent else { return }
        let metrics = gateway.metrics
        var pong: WebSocketFrame?
        if let data = pongOwed, context.channel.isWritable {
            pongOwed = nil
            pong = WebSocketFrame(fin: true, opcode: .pong, data: data)
        }
        var frames: ByteBuffer?
        /// Hands the pong, then the framed text so far, to the socket.
        func writeOut(promise: EventLoopPromise<Void>?) {
            if let frame = pong.take() {
                context.write(wrapOutboundOut(frame), promise: frames == nil ? promise : nil)
            }
            if let buffer = frames.take() { framedOut.write(NIOAny(buffer), promise: promise) }
        }
        while context.channel.isWritable, let item = connection.queue.take() {
            switch item {
            case .frame(let text, let queuedAt):
                if let buffer = frames, buffer.readableBytes >= Self.passBytes { writeOut(promise: nil) }
                var buffer = frames.take() ?? context.channel.allocator.buffer(capacity: Self.frameBytes(text))
                Self.appendTextFrame(text, to: &buffer)
                frames = buffer
                metrics.deliveryLatency.record(.nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds &- queuedAt)))
            case .close(let code, let reason):
                writeOut(promise: nil)
                connection.requests.close()
                context.read()  // for the peer's answer, were reads held back
                _ = sendClose(WebSocketErrorCode(codeNumber: code.rawValue), reason: reason, context)
                return
            }
        }
        guard pong != nil || frames != nil else { return }
        let written = context.eventLoop.makePromise(of: Void.self)
        writeOut(promise: written)
        context.flush()
        noteFlush(written.futureResult, of: connection)
    }

    /// How many bytes of framed text a write pass gathers in one buffer before it hands them
    /// to the socket and asks whether it takes more (one frame may take it past): the default
    /// high-water mark of a NIO channel's write buffer.
    static let passBytes = 64 * 1024

    /// The bytes `text` takes as one unmasked frame: a header of 2, 4 or 10 bytes, then the text.
    static func frameBytes(_ text: String) -> Int {
        let length = text.utf8.count
        return length + (length < 126 ? 2 : length <= Int(UInt16.max) ? 4 : 10)
    }

    /// Appends `text` to `buffer` as one final, unmasked text frame, as a server sends them
    /// (RFC 6455 §5.2).
    static func appendTextFrame(_ text: String, to buffer: inout ByteBuffer) {
        let length = text.utf8.count
        buffer.writeInteger(UInt8(0x81))  // FIN, text
        if length < 126 {
            buffer.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(length))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(length))
        }
        buffer.writeString(text)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { writeQueued(context) }
        context.fireChannelWritabilityChanged()
    }

    /// Notes on the connection since when a flush has been waiting for the peer, so the hub's
    /// sweep can cut off a peer that stopped reading. A failed write ends the queue.
    private func noteFlush(_ written: EventLoopFuture<Void>, of connection: GatewayConnection) {
        unfinishedFlushes += 1
        if unfinishedFlushes == 1 { connection.writeBegan() }
        written.assumeIsolated().whenComplete { [self] result in
            unfinishedFlushes -= 1
            // The flushes still waiting are waiting since this one went out.
            if unfinishedFlushes == 0 { connection.writeEnded() } else { connection.writeBegan() }
            if case .failure = result { connection.queue.abandon() }
        }
    }

    /// Sends this side's close frame, after which nothing else is written. The peer has the
    /// close timeout to answer it, or to take it at all (a peer that stopped reading), before
    /// the socket is closed under it.
    private func sendClose(_ code: WebSocketErrorCode, reason: String, _ context: ChannelHandlerContext)
        -> EventLoopFuture<Void>
    {
        closeSent = true
        connection?.abort(after: WebSocketGateway.closeTimeout)
        var data = context.channel.allocator.buffer(capacity: 2 + Self.maxCloseReasonBytes)
        data.write(webSocketErrorCode: code)
        data.writeString(Self.closeReason(reason))
        return context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
    }

    /// Stops answering requests and drops what the queue holds: the socket is closing.
    /// Reading resumes, were it held back, so the peer's close frame is read.
    private func stopServing(_ context: ChannelHandlerContext) {
        connection?.requests.close()
        connection?.queue.abandon()
        pongOwed = nil
        context.read()
    }

    /// At a graceful shutdown the socket closes with 1000; a peer that does not answer is cut
    /// off after the close timeout. A peer that ended its side of the TCP connection without
    /// a close frame (an app killed, its socket closed by the system) is gone: the socket
    /// closes at once.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is ChannelShouldQuiesceEvent where connection != nil && !closeSent:
            stopServing(context)
            _ = sendClose(.normalClosure, reason: "The server is shutting down.", context)
        case let channelEvent as ChannelEvent where channelEvent == .inputClosed:
            context.close(promise: nil)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A failed read or write: the socket is done. NIO's protocol error handler already
    /// answered a frame it could not decode with its close frame, and closes the socket
    /// itself once that is written: nothing else goes out after it.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is NIOWebSocketError else { return context.close(promise: nil) }
        closeSent = true
        stopServing(context)
        connection?.abort(after: WebSocketGateway.closeTimeout)
    }

    // MARK: Rules

    /// A close frame's reason is at most 123 bytes (a control frame carries 125, the code 2).
    static let maxCloseReasonBytes = 123

    /// `reason` cut to whole characters within ``maxCloseReasonBytes``.
    static func closeReason(_ reason: String) -> String {
        guard reason.utf8.count > maxCloseReasonBytes else { return reason }
        var cut = ""
        for character in reason {
            guard cut.utf8.count + character.utf8.count <= maxCloseReasonBytes else { break }
            cut.append(character)
        }
        return cut
    }

    /// Whether a peer may send `code` in its close frame (RFC 6455 §7.4).
    static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    /// The bytes as a string, or nil when they are not valid UTF-8.
    static func validatedText(_ data: ByteBuffer) -> String? {
        if #available(macOS 15, iOS 18, *) {
            String(validating: data.readableBytesView, as: UTF8.self)
        } else {
            String(bytes: data.readableBytesView, encoding: .utf8)
        }
    }
}
