import Foundation
import ParleyCore
import Testing

/// The WebSocket's own protocol: authentication, heartbeat and its timeouts.
@Suite struct GatewayTests {
    @Test func pingIsAnsweredWithPongCarryingTheSameID() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let pong = try await socket.request(.ping, EmptyPayload())
            #expect(pong.type == "pong")
            await socket.close()
        }
    }

    @Test func silentSocketIsClosedAfterTheHeartbeatTimeoutButAPingingOneIsNot() async throws {
        try await withServer(configure: { $0.heartbeatTimeout = .seconds(5) }) { api in
            let alice = try await api.signUp("alice")
            let silent = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let pinging = try RawWebSocketPinger(
                port: api.port, token: alice.token, interval: .milliseconds(150), frame: RawWebSocketPinger.parleyPing)
            defer { pinging.stop() }
            #expect(try await silent.waitForClose() == CloseCode.heartbeatTimeout.rawValue)
            #expect(await !pinging.socket.closedByPeer(within: .seconds(6)), "a socket sending pings stays open")
            // `read` returns with the first bytes; its limit is a hang guard. A limit of 2 s ran
            // out once in a CI run's first, most crowded minute, with the socket still open.
            let answers = String(decoding: await pinging.socket.read(timeout: .seconds(30)) ?? [], as: UTF8.self)
            #expect(answers.contains(#""type":"pong""#), "its pings are answered")
        }
    }

    @Test func socketThatNeverAuthenticatesIsClosed() async throws {
        try await withServer(configure: { $0.authenticationTimeout = .milliseconds(300) }) { api in
            let socket = try await LiveSocket.connect(api.webSocketURL)
            #expect(try await socket.waitForClose() == CloseCode.unauthenticated.rawValue)
        }
    }

    @Test func requestBeforeAuthOrWithABadTokenClosesWith4001() async throws {
        try await withServer { api in
            let early = try await LiveSocket.connect(api.webSocketURL)
            let answer = try await early.request(.sync, SyncRequest())
            #expect(try answer.payload(ParleyError.self).code == .unauthenticated)
            #expect(try await early.waitForClose() == CloseCode.unauthenticated.rawValue)

            let forged = try await LiveSocket.connect(api.webSocketURL)
            let rejected = try await forged.request(.auth, AuthPayload(token: "pat_forged"))
            #expect(try rejected.payload(ParleyError.self).code == .invalidToken)
            #expect(try await forged.waitForClose() == CloseCode.unauthenticated.rawValue)
        }
    }

    @Test func aMalformedAuthFrameGetsItsErrorAndTheSocketMayAuthenticateAfterwards() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let socket = try await LiveSocket.connect(api.webSocketURL)
            socket.sendRaw(#"{"type":"auth","id":"a1","payload":{"tokn":"x"}}"#)
            let misspelt = try await socket.waitFor { $0.id == "a1" }
            #expect(try misspelt.payload(ParleyError.self).code == .unknownField)
            socket.sendRaw(#"{"type":"hello","id":"h1"}"#)
            let unknown = try await socket.waitFor { $0.id == "h1" }
            #expect(try unknown.payload(ParleyError.self).code == .unknownFrameType)
            let ready = try await socket.request(.auth, AuthPayload(token: alice.token))
            #expect(ready.type == "ready")
            let sync: SyncResponse = try await socket.call(.sync, SyncRequest())
            #expect(sync.conversations.isEmpty)
            await socket.close()
        }
    }

    /// A plainly valid send or mark is read without `JSONDecoder`; one the fast reader
    /// declines (an unknown field in the payload or the envelope, a decimal number) goes the
    /// usual way and gets the same answer or error as before.
    @Test func sendAndMarkFramesGetTheSameAnswersAndErrorsWhicheverReaderReadsThem() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let socket = try await LiveSocket.connect(api.webSocketURL)
            _ = try await socket.request(.auth, AuthPayload(token: alice.token))
            let to = #""toUserId":\#(bob.id.rawValue),"kind":"text""#
            socket.sendRaw(
                #"{"type":"send","id":"f","payload":{\#(to),"clientMsgId":"f","content":{"text":"\ud83d\ude42 \u00e9"}}}"#
            )
            let fast = try await socket.waitFor { $0.id == "f" }
            #expect(try fast.payload(SendMessageResponse.self).message.content == ["text": "🙂 é"])
            socket.sendRaw(
                #"{"type":"send","id":"d","payload":{\#(to),"clientMsgId":"d","content":{"text":"x","n":1.50}}}"#)
            let decimal = try await socket.waitFor { $0.id == "d" }
            #expect(
                try decimal.payload(SendMessageResponse.self).message.content.objectValue?["n"]
                    == JSONValue.number(JSONNumber(Decimal(string: "1.5")!)))
            socket.sendRaw(#"{"type":"send","id":"u","payload":{\#(to),"clientMsgId":"u","content":{},"extra":1}}"#)
            let unknownField = try await socket.waitFor { $0.id == "u" }
            #expect(try unknownField.payload(ParleyError.self).code == .unknownField)
            socket.sendRaw(#"{"type":"send","id":"e","payload":{\#(to),"clientMsgId":"e","content":{}},"extra":1}"#)
            let envelope = try await socket.waitFor { $0.type == "error" && $0.id == nil }
            #expect(try envelope.payload(ParleyError.self).code == .unknownField)
            let conversation = try fast.payload(SendMessageResponse.self).message.conversationId
            let history: HistoryPage = try await api.call(
                .get, "/v1/conversations/\(conversation.rawValue)/messages?after=0", token: alice.token)
            #expect(history.messages.map(\.clientMsgId) == ["f", "d"], "the refused frames stored nothing")

            // Marks, read fast or the usual way: the same answers, the same errors.
            let bobSocket = try await LiveSocket.connect(api.webSocketURL)
            _ = try await bobSocket.request(.auth, AuthPayload(token: bob.token))
            let id = conversation.rawValue
            bobSocket.sendRaw(#"{"type":"delivered","id":"m1","payload":{"conversationId":\#(id),"seq":1}}"#)
            let deliveredFast = try await bobSocket.waitFor { $0.id == "m1" }
            #expect(
                try deliveredFast.payload(ReadReceipt.self)
                    == ReadReceipt(conversationId: conversation, userId: bob.id, seq: 1))
            bobSocket.sendRaw(#"{"type":"read","id":"m2","payload":{"conversationId":\#(id),"seq":2.0}}"#)
            let readDecimal = try await bobSocket.waitFor { $0.id == "m2" }
            #expect(
                try readDecimal.payload(ReadReceipt.self)
                    == ReadReceipt(conversationId: conversation, userId: bob.id, seq: 2))
            bobSocket.sendRaw(#"{"type":"read","id":"m3","payload":{"conversationId":\#(id),"seq":1,"extra":1}}"#)
            #expect(try await bobSocket.waitFor { $0.id == "m3" }.payload(ParleyError.self).code == .unknownField)
            bobSocket.sendRaw(#"{"type":"delivered","id":"m4","payload":{"conversationId":\#(id),"seq":-1}}"#)
            #expect(try await bobSocket.waitFor { $0.id == "m4" }.payload(ParleyError.self).code == .invalidField)
            bobSocket.sendRaw(#"{"type":"read","id":"m5","payload":{"conversationId":999999,"seq":1}}"#)
            #expect(try await bobSocket.waitFor { $0.id == "m5" }.payload(ParleyError.self).code == .notAMember)
            await bobSocket.close()
            await socket.close()
        }
    }

    @Test func tokenInTheUpgradeURLAuthenticatesWithoutAnAuthFrame() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let socket = try await LiveSocket.connect(api.webSocketURL + "?access_token=\(alice.token)")
            let ready = try await socket.waitFor { $0.type == "ready" }
            #expect(try ready.payload(ReadyPayload.self).user.id == alice.id)
            let sync: SyncResponse = try await socket.call(.sync, SyncRequest())
            #expect(sync.conversations.isEmpty)
            await socket.close()
        }
    }
}
