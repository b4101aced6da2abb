import Foundation
import ParleyCore
import Testing

/// Bad input gets its documented error and changes nothing.
@Suite struct BadInputTests {
    @Test func malformedRequestBodiesGetPreciseErrors() async throws {
        try await withServer { api in
            let cases: [(body: String, status: Int, code: ErrorCode)] = [
                ("{\"username\": \"alice\",", 400, .invalidJSON),
                ("[1, 2]", 400, .invalidJSON),
                ("{\"username\": \"alice\", \"password\": \"Passw0rd!\", \"nickame\": \"Al\"}", 400, .unknownField),
                ("{\"username\": \"alice\"}", 400, .missingField),
                ("{\"username\": 42, \"password\": \"Passw0rd!\"}", 400, .invalidField),
                (
                    "{\"username\": \"alice\", \"password\": \"\(String(repeating: "x", count: 140_000))\"}", 413,
                    .payloadTooLarge
                ),
            ]
            for (body, status, code) in cases {
                let response = try await api.raw(.post, "/v1/accounts", body: body)
                #expect(response.status == status, "\(body.prefix(60))")
                #expect(try decodeJSON(ErrorBody.self, response.body).error.code == code, "\(body.prefix(60))")
            }
            let lookup = try await api.raw(.post, "/v1/sessions", body: #"{"login":"alice","password":"Passw0rd!"}"#)
            #expect(lookup.status == 401, "no account was created by any bad request")
        }
    }

    @Test func invalidAccountFieldsAreEachNamed() async throws {
        try await withServer { api in
            let cases: [(RegisterRequest, ErrorCode)] = [
                (RegisterRequest(username: "ab", password: "Passw0rd!"), .usernameInvalid),
                (RegisterRequest(username: "9lives", password: "Passw0rd!"), .usernameInvalid),
                (RegisterRequest(username: "bad name", password: "Passw0rd!"), .usernameInvalid),
                (RegisterRequest(username: "émile", password: "Passw0rd!"), .usernameInvalid),
                (RegisterRequest(username: String(repeating: "a", count: 33), password: "Passw0rd!"), .usernameInvalid),
                (RegisterRequest(username: "alice", password: "Sh0rt"), .passwordTooShort),
                (RegisterRequest(username: "alice", password: "alllowercase"), .passwordTooWeak),
                (RegisterRequest(username: "alice", password: "12345678901"), .passwordTooWeak),
                (RegisterRequest(username: "alice", password: String(repeating: "aB", count: 37)), .passwordTooLong),
                (RegisterRequest(username: "alice", password: "Ab1\u{0}zzzzzzzz"), .passwordInvalid),
                (RegisterRequest(username: "\u{212A}ate", password: "Passw0rd!"), .usernameInvalid),
                (RegisterRequest(username: "alice", password: "Passw0rd!", email: "not-an-email"), .emailInvalid),
                (RegisterRequest(username: "alice", password: "Passw0rd!", phone: "0151 1234"), .phoneInvalid),
                (RegisterRequest(username: "alice", password: "Passw0rd!", nickname: ""), .nicknameInvalid),
            ]
            for (request, code) in cases {
                let failure = try await capture { let _: Account = try await api.call(.post, "/v1/accounts", request) }
                #expect(failure?.status == 400, "\(request.username)")
                #expect(failure?.error.code == code, "\(request.username) / \(request.password)")
                #expect(failure?.error.message.isEmpty == false)
            }
            let alice = try await api.signUp("alice")
            let none: Account = try await api.call(.get, "/v1/me", token: alice.token)
            #expect(none.user.username == "alice", "the name stayed free through every rejected attempt")

            for (request, code) in [
                (RegisterRequest(username: "ALICE", password: "Passw0rd!"), ErrorCode.usernameTaken),
                (RegisterRequest(username: "bob", password: "Passw0rd!", email: "b@example.com"), .usernameTaken),
            ] {
                if code == .usernameTaken, request.username == "bob" {
                    let _: Account = try await api.call(
                        .post, "/v1/accounts", RegisterRequest(username: "bob", password: "Passw0rd!"))
                }
                let failure = try await capture { let _: Account = try await api.call(.post, "/v1/accounts", request) }
                #expect(failure?.status == 409)
                #expect(failure?.error.code == code)
            }
        }
    }

    @Test func badMessagesAreRejectedAndUnknownKindsKeptIntact() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let conversation = try await api.createGroup("kinds", by: alice, with: [bob])
            let bad: [(SendMessageRequest, ErrorCode)] = [
                (
                    SendMessageRequest(
                        conversationId: conversation, clientMsgId: "e1", kind: .text, content: .object(["text": "  "])),
                    .messageInvalid
                ),
                (
                    SendMessageRequest(
                        conversationId: conversation, clientMsgId: "e2", kind: .text, content: .string("hi")),
                    .messageInvalid
                ),
                (
                    SendMessageRequest(
                        conversationId: conversation, clientMsgId: "e3", kind: .system, content: .object(["event": "x"])
                    ), .messageInvalid
                ),
                (
                    SendMessageRequest(
                        conversationId: conversation, clientMsgId: "e4", kind: .image, content: .object(["fileId": "f"])
                    ), .messageInvalid
                ),
                (
                    SendMessageRequest(
                        conversationId: conversation, clientMsgId: "", kind: .text, content: .object(["text": "x"])),
                    .invalidField
                ),
                (SendMessageRequest(clientMsgId: "e6", kind: .text, content: .object(["text": "x"])), .invalidField),
                (
                    SendMessageRequest(
                        conversationId: conversation, clientMsgId: "e7", kind: "Bad Kind", content: .object([:])),
                    .messageInvalid
                ),
                (
                    SendMessageRequest(
                        conversationId: conversation, clientMsgId: "e8", kind: .text,
                        content: .object(["text": .string(String(repeating: "x", count: Limits.maxTextLength + 1))])),
                    .messageInvalid
                ),
            ]
            for (request, code) in bad {
                let failure = try await capture {
                    let _: SendMessageResponse = try await api.call(.post, "/v1/messages", request, token: alice.token)
                }
                #expect(failure?.error.code == code, "\(request.clientMsgId) \(request.kind)")
            }
            #expect(try await api.fullHistory(of: conversation, as: alice).isEmpty)

            let future: JSONValue = .object([
                "question": "Lunch?", "options": .array(["noodles", "pizza"]), "multi": .bool(false), "n": .number(2),
            ])
            let poll: SendMessageResponse = try await api.call(
                .post, "/v1/messages",
                SendMessageRequest(conversationId: conversation, clientMsgId: "poll-1", kind: "poll", content: future),
                token: alice.token)
            let stored = try await api.fullHistory(of: conversation, as: bob)
            #expect(stored.map(\.kind) == ["poll"])
            #expect(stored.first?.content == future)
            #expect(stored.first?.typedContent == .unsupported(kind: "poll", content: future))
            #expect(poll.message.seq == 1)
        }
    }

    @Test func malformedFramesGetErrorFramesAndTheSocketStaysUsable() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)

            socket.sendRaw("this is not json")
            let notJSON = try await socket.waitFor { $0.type == "error" }
            #expect(try notJSON.payload(ParleyError.self).code == .invalidJSON)
            _ = socket.drain()

            socket.sendRaw(#"{"type":"teleport","id":"t1","payload":{}}"#)
            let unknownType = try await socket.waitFor { $0.id == "t1" }
            #expect(try unknownType.payload(ParleyError.self).code == .unknownFrameType)

            socket.sendRaw(#"{"type":"sync","id":"t2","payload":{"cursor":null,"since":5}}"#)
            let unknownField = try await socket.waitFor { $0.id == "t2" }
            #expect(try unknownField.payload(ParleyError.self).code == .unknownField)

            socket.sendRaw(#"{"type":"sync","id":"t3","extra":true}"#)
            let unknownEnvelope = try await socket.waitFor { $0.type == "error" && $0.text.contains("extra") }
            #expect(try unknownEnvelope.payload(ParleyError.self).code == .unknownField)

            socket.sendRaw(#"{"type":"send","id":"t4","payload":{"conversationId":"one"}}"#)
            let wrongType = try await socket.waitFor { $0.id == "t4" }
            #expect(try wrongType.payload(ParleyError.self).code == .invalidField)

            let padding = String(repeating: "x", count: Limits.maxFrameBytes)
            socket.sendRaw(#"{"type":"ping","id":"t5","payload":{"pad":"\#(padding)"}}"#)
            let oversized = try await socket.waitFor { $0.type == "error" && $0.text.contains("payload_too_large") }
            #expect(try oversized.payload(ParleyError.self).code == .payloadTooLarge)

            let pong = try await socket.request(.ping, EmptyPayload())
            #expect(pong.type == "pong", "the socket still works after every bad frame")

            socket.sendRaw(String(repeating: "y", count: Limits.maxTransportFrameBytes + 1))
            #expect(try await socket.waitForClose() == 1009)
        }
    }
}
