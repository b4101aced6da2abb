import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import ParleyCore
import Testing

@testable import ParleyServer

/// RFC 6455 as the gateway's channel handler speaks it: fragments, control frames, the
/// closing handshake, and frames that break the rules.
@Suite struct WebSocketFramingTests {
    /// A socket upgraded without a token, with nothing read after the 101.
    static func upgradedSocket(_ api: TestAPI) async throws -> RawTCPSocket {
        let socket = try RawTCPSocket(port: api.port)
        socket.sendWebSocketUpgrade(token: nil)
        #expect(await socket.readResponseStatus(within: .seconds(30)) == "HTTP/1.1 101 Switching Protocols")
        return socket
    }

    /// Reads until `count` bytes came, the socket closed, or 30 s passed.
    static func read(_ count: Int, from socket: RawTCPSocket) async -> [UInt8] {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while bytes.count < count, ContinuousClock.now < deadline {
            guard let more = await socket.read(timeout: .milliseconds(200)) else { break }
            bytes += more
        }
        return bytes
    }

    @Test func aTextFrameInFragmentsIsOneRequestAndAControlFrameMayComeBetweenThem() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let text = Array(#"{"type":"ping","id":"in-three-parts"}"#.utf8)
            socket.sendFrame(WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(bytes: text[0..<10])))
            socket.sendControlPing()
            socket.sendFrame(WebSocketFrame(fin: false, opcode: .continuation, data: ByteBuffer(bytes: text[10..<20])))
            socket.sendFrame(WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(bytes: text[20...])))
            let pong = try await socket.waitFor { $0.id == "in-three-parts" }
            #expect(pong.type == "pong")
            #expect(try await socket.request(.ping, EmptyPayload()).type == "pong", "the socket stays usable")
        }
    }

    @Test func aControlPingIsAnsweredWithAPongCarryingItsData() async throws {
        try await withServer { api in
            let socket = try await Self.upgradedSocket(api)
            socket.sendBytes(RawWebSocketPinger.frame(opcode: 0x9, payload: Array("are you there".utf8)))
            #expect(await Self.read(15, from: socket) == [0x8A, 13] + Array("are you there".utf8))
        }
    }

    @Test func requestsSentInOneBurstAreAnsweredInOrder() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let socket = try RawTCPSocket(port: api.port)
            socket.sendWebSocketUpgrade(token: alice.token)
            #expect(await socket.readResponseStatus(within: .seconds(30)) == "HTTP/1.1 101 Switching Protocols")
            // Many more than the gateway holds before it stops reading, in one write.
            let burst = 100
            socket.sendBytes((1...burst).flatMap { RawWebSocketPinger.parleyPing($0) })
            var answers = ""
            let deadline = ContinuousClock.now + .seconds(60)
            while answers.components(separatedBy: #""type":"pong""#).count <= burst, ContinuousClock.now < deadline {
                answers += String(decoding: await socket.read(timeout: .milliseconds(200)) ?? [], as: UTF8.self)
            }
            let ids = answers.matches(of: /"id":"p(\d+)"/).map { Int($0.1)! }
            #expect(ids == Array(1...burst))
        }
    }

    @Test func aBinaryFrameGetsAnErrorAndTheSocketStaysUsable() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            socket.sendFrame(WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: [1, 2, 3])))
            let error = try await socket.waitFor { $0.type == "error" }
            #expect(try error.payload(ParleyError.self).code == .invalidJSON)
            #expect(try await socket.request(.ping, EmptyPayload()).type == "pong")
        }
    }

    @Test func aCloseFromTheClientIsAnsweredWith1000AndTheSocketCloses() async throws {
        try await withServer { api in
            let socket = try await Self.upgradedSocket(api)
            socket.sendBytes(RawWebSocketPinger.frame(opcode: 0x8, payload: [0x0F, 0xA0] + Array("bye".utf8)))  // 4000
            #expect(await Self.read(4, from: socket) == [0x88, 2, 0x03, 0xE8])
            #expect(await socket.closedByPeer(within: .seconds(30)))
        }
    }

    @Test func framesThatBreakTheProtocolCloseWith1002() async throws {
        try await withServer { api in
            let badFrames: [(String, [UInt8])] = [
                (
                    "unmasked",
                    RawWebSocketPinger.frame(opcode: 0x1, payload: Array(#"{"type":"ping"}"#.utf8), masked: false)
                ),
                ("a continuation with nothing to continue", RawWebSocketPinger.frame(opcode: 0x0, payload: [0x7B])),
                ("a reserved bit", RawWebSocketPinger.frame(opcode: 0x1, payload: [0x7B], firstByteBits: 0x40)),
                ("a reserved opcode", RawWebSocketPinger.frame(opcode: 0x3, payload: [])),
                ("a close code no peer may send", RawWebSocketPinger.frame(opcode: 0x8, payload: [0x03, 0xED])),  // 1005
            ]
            for (name, frame) in badFrames {
                let socket = try await Self.upgradedSocket(api)
                socket.sendBytes(frame)
                #expect(await Self.read(4, from: socket) == [0x88, 2, 0x03, 0xEA], "\(name)")
                #expect(await socket.closedByPeer(within: .seconds(30)), "\(name)")
            }
        }
    }

    @Test func aNewMessageBeforeTheLastOneEndedClosesWith1002() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            socket.sendFrame(WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(string: "{")))
            socket.sendFrame(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: "{}")))
            #expect(try await socket.waitForClose() == 1002)
        }
    }

    @Test func fragmentsAddingUpPastTheLimitCloseWith1009() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let half = ByteBuffer(repeating: UInt8(ascii: "a"), count: Limits.maxTransportFrameBytes / 2 + 1)
            socket.sendFrame(WebSocketFrame(fin: false, opcode: .text, data: half))
            socket.sendFrame(WebSocketFrame(fin: true, opcode: .continuation, data: half))
            #expect(try await socket.waitForClose() == 1009)
        }
    }

    /// A killed app's system ends the TCP connection without a close frame: the server lets
    /// go of the socket at once, not after the heartbeat timeout.
    @Test func aPeerThatEndsTheConnectionWithoutACloseFrameIsLetGoAtOnce() async throws {
        try await withServer(configure: { $0.heartbeatTimeout = .seconds(900) }) { api in
            let alice = try await api.signUp("alice")
            let socket = try RawTCPSocket(port: api.port)
            socket.sendWebSocketUpgrade(token: alice.token)
            #expect(await socket.readResponseStatus(within: .seconds(30)) == "HTTP/1.1 101 Switching Protocols")
            #expect(try await api.metricsShow("\nparley_connections 1"))
            socket.finishSending()
            #expect(try await api.metricsShow("\nparley_connections 0"))
            #expect(await socket.closedByPeer(within: .seconds(30)))
        }
    }

    /// Pongs wait for a socket that takes no more bytes like any other frame: a client that
    /// pings without reading is cut off after the write timeout, not answered into the
    /// server's memory for as long as it pings.
    @Test func aPeerThatPingsWithoutReadingIsCutOffAfterTheWriteTimeout() async throws {
        try await withServer(configure: {
            $0.writeTimeout = .seconds(2)
            $0.heartbeatTimeout = .seconds(900)
        }) { api in
            let alice = try await api.signUp("alice")
            let ping = RawWebSocketPinger.frame(opcode: 0x9, payload: Array(repeating: 0x70, count: 125))
            let pinger = try RawWebSocketPinger(port: api.port, token: alice.token, interval: .milliseconds(5)) { _ in
                Array(Array(repeating: ping, count: 200).joined())
            }
            defer { pinger.stop() }
            #expect(try await api.metricsShow("parley_stuck_write_aborts_total 1"), "the socket was cut off")
            #expect(try await api.metricsShow("\nparley_connections 0"))
        }
    }

    @Test func aLongCloseReasonIsCutToWholeCharactersThatFitAControlFrame() {
        let reason = String(repeating: "汉", count: 60)  // 180 bytes
        let cut = GatewayChannelHandler.closeReason(reason)
        #expect(cut == String(repeating: "汉", count: 41), "123 bytes hold 41 three-byte characters")
        #expect(GatewayChannelHandler.closeReason("Session revoked.") == "Session revoked.")
    }

    @Test(arguments: [0, 1, 125, 126, 127, 65_535, 65_536, 70_001])
    func aTextFrameIsFramedByteForByteAsNIOsEncoderFramesIt(length: Int) throws {
        let text = String(repeating: "é", count: length / 2) + String(repeating: "a", count: length % 2)
        var framed = ByteBuffer()
        GatewayChannelHandler.appendTextFrame(text, to: &framed)
        #expect(framed.readableBytes == GatewayChannelHandler.frameBytes(text))
        let channel = EmbeddedChannel(handler: WebSocketFrameEncoder())
        try channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))).wait()
        var encoded = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { encoded.writeBuffer(&part) }
        #expect(framed == encoded)
    }
}
