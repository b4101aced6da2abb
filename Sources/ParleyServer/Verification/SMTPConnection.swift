import NIOCore
import NIOPosix
import NIOSSL

/// One connection to a mail server: sends command lines, reads replies, and can start TLS in
/// the middle (STARTTLS). All of it must end by one deadline, when the channel is closed.
struct SMTPConnection {
    private let channel: any Channel
    private var lines: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let deadline: NIODeadline
    private let timeout: TimeAmount

    /// TLS for a connection: the context, and the name to check the server's certificate
    /// against (nil for an IP address, checked against the certificate's addresses).
    struct TLS: Sendable {
        let context: NIOSSLContext
        let serverHostname: String?
    }

    /// Connects to `host`:`port`, with TLS from the first byte when `tls` is given, runs `body`
    /// on the connection and closes it, whatever happens, and at the latest after `timeout`.
    static func withConnection<Result>(
        host: String, port: Int, tls: TLS?, timeout: TimeAmount,
        _ body: (inout SMTPConnection) async throws -> Result
    ) async throws -> Result {
        let deadline = NIODeadline.now() + timeout
        let asyncChannel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            asyncChannel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        if let tls {
                            try pipeline.addHandler(
                                NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverHostname))
                        }
                        try pipeline.addHandler(ByteToMessageHandler(SMTPLineDecoder()))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SMTPError(step: "connect", message: "cannot connect to \(host) port \(port): \(error)")
        }
        let channel = asyncChannel.channel
        let closing = channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
        defer { closing.cancel() }
        return try await asyncChannel.executeThenClose { inbound, outbound in
            var connection = SMTPConnection(
                channel: channel, lines: inbound.makeAsyncIterator(), outbound: outbound, deadline: deadline,
                timeout: timeout)
            return try await body(&connection)
        }
    }

    /// The name to give in EHLO: the connection's own address as an address literal
    /// (`[192.0.2.1]`, `[IPv6:2001:db8::1]`), as RFC 5321 asks of a client without a domain name.
    var clientName: String {
        guard let address = channel.localAddress, let ip = address.ipAddress else { return "localhost" }
        if case .v6 = address { return "[IPv6:\(ip)]" }
        return "[\(ip)]"
    }

    /// Sends `command`, a line without its CRLF, and reads the reply, which must have one of
    /// the `expected` codes. `step` names the command in errors; the command itself, which may
    /// hold credentials, never appears in them.
    @discardableResult
    mutating func send(_ command: String, step: String, expecting expected: Set<Int>) async throws -> SMTPReply {
        try await write(ByteBuffer(string: command + "\r\n"), step: step)
        return try await readReply(step: step, expecting: expected)
    }

    /// Sends `bytes` as they are.
    func write(_ bytes: ByteBuffer, step: String) async throws {
        do {
            try await outbound.write(bytes)
        } catch {
            throw failure(error, step: step)
        }
    }

    /// Reads the next reply, which must have one of the `expected` codes.
    @discardableResult
    mutating func readReply(step: String, expecting expected: Set<Int>) async throws -> SMTPReply {
        var code: Int?
        var texts: [String] = []
        while true {
            let received: ByteBuffer?
            do {
                received = try await lines.next()
            } catch {
                throw failure(error, step: step)
            }
            guard let received else { throw failure(nil, step: step) }
            guard let line = SMTPReply.Line(String(buffer: received)), code == nil || code == line.code else {
                throw SMTPError(step: step, message: "the server sent something that is not a reply")
            }
            code = line.code
            texts.append(line.text)
            guard !line.isLast else { break }
            guard texts.count < 100 else {
                throw SMTPError(step: step, message: "the server sent a reply of more than 100 lines")
            }
        }
        let reply = SMTPReply(code: code ?? 0, lines: texts)
        guard expected.contains(reply.code) else { throw SMTPError(step: step, refusal: reply) }
        return reply
    }

    /// Starts TLS on the connection, after the server's `220` to STARTTLS, and waits for the
    /// handshake: what follows in both directions goes through it.
    func startTLS(_ tls: TLS) async throws {
        let channel = self.channel
        do {
            try await channel.eventLoop.flatSubmit {
                let handshake = channel.eventLoop.makePromise(of: Void.self)
                do {
                    let handler = try NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverHostname)
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(handler, position: .first)
                    try pipeline.addHandler(TLSHandshakeWaiter(promise: handshake), position: .after(handler))
                } catch {
                    handshake.fail(error)
                }
                return handshake.futureResult
            }.get()
        } catch {
            throw failure(error, step: "TLS")
        }
    }

    /// The error for `step` when the connection failed with `error`, or closed (nil). A failure
    /// of TLS, its handshake included, is the step `TLS`.
    private func failure(_ error: (any Error)?, step: String) -> SMTPError {
        if let error = error as? SMTPError { return error }
        if NIODeadline.now() >= deadline {
            return SMTPError(step: step, message: "no answer within \(timeout.nanoseconds / 1_000_000_000) s")
        }
        switch error {
        case nil: return SMTPError(step: step, message: "the server closed the connection")
        case let error as NIOSSLError:
            return SMTPError(step: "TLS", message: "the handshake or a record failed: \(error)")
        case let error as BoringSSLError: return SMTPError(step: "TLS", message: "\(error)")
        case let error?: return SMTPError(step: step, message: "\(error)")
        }
    }
}
