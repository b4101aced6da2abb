import Foundation
import ParleyCore
import Testing

/// Typing indicators reach every device of the other members, are rate-limited per sender,
/// and are never stored.
@Suite struct TypingTests {
    @Test func everyDeviceOfTheOtherMembersSeesItOnceAndNothingIsStored() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let bobLaptop = try await api.logIn("bob", device: "laptop")
            let cyd = try await api.signUp("cyd")
            let group = try await api.createGroup("Team", by: alice, with: [bob, cyd])
            let before: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)
            let aliceSocket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let watchers = [
                try await LiveSocket.connect(api.webSocketURL, token: bob.token),
                try await LiveSocket.connect(api.webSocketURL, token: bobLaptop.token),
                try await LiveSocket.connect(api.webSocketURL, token: cyd.token),
            ]

            let started = ContinuousClock.now
            for _ in 0..<5 {
                let answer = try await aliceSocket.request(.typing, TypingRequest(conversationId: group, typing: true))
                #expect(answer.type == "result")
            }
            // The five starts fall within one refresh interval unless the machine is very slow
            // (a loaded CI run); then a later start may rightly go out again.
            let withinOneInterval = ContinuousClock.now - started < .milliseconds(Limits.typingMinIntervalMs)
            try await aliceSocket.request(.typing, TypingRequest(conversationId: group, typing: false))
            let expected = [
                TypingNotice(conversationId: group, userId: alice.id, typing: true, expiresInMs: Limits.typingExpiryMs),
                TypingNotice(
                    conversationId: group, userId: alice.id, typing: false, expiresInMs: Limits.typingExpiryMs),
            ]
            for socket in watchers {
                _ = try await socket.waitFor { $0.type == "typing" && $0.text.contains("false") }
                let notices = try socket.received.filter { $0.type == "typing" }.map {
                    try $0.payload(TypingNotice.self)
                }
                if withinOneInterval {
                    #expect(notices == expected, "five starts within the refresh time are one, then the stop")
                } else {
                    #expect(notices.last == expected[1] && notices.dropLast().allSatisfy { $0 == expected[0] })
                }
            }
            let forwarded = watchers[0].received.filter { $0.type == "typing" }.count
            #expect(aliceSocket.received.allSatisfy { $0.type != "typing" }, "the typist's own devices hear nothing")

            // A stop that follows no forwarded start is not forwarded either.
            try await aliceSocket.request(.typing, TypingRequest(conversationId: group, typing: false))
            try await Task.sleep(for: .milliseconds(200))
            #expect(watchers[0].received.filter { $0.type == "typing" }.count == forwarded)

            let after: SyncResponse = try await api.call(.get, "/v1/sync?cursor=\(before.cursor)", token: bob.token)
            #expect(after.events.isEmpty && after.conversations.isEmpty && after.cursor == before.cursor)
        }
    }

    @Test func onlyMembersTypeAndBadFramesAreNamed() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let eve = try await api.signUp("eve")
            let group = try await api.createGroup("Team", by: alice, with: [bob])
            let bobSocket = try await LiveSocket.connect(api.webSocketURL, token: bob.token)
            let eveSocket = try await LiveSocket.connect(api.webSocketURL, token: eve.token)

            let outsider = try await eveSocket.request(.typing, TypingRequest(conversationId: group, typing: true))
            #expect(try outsider.payload(ParleyError.self).code == .notAMember)
            let bodies: [(String, ErrorCode)] = [
                (#"{"typing":true}"#, .missingField),
                (#"{"conversationId":\#(group.rawValue)}"#, .missingField),
                (#"{"conversationId":\#(group.rawValue),"typing":"yes"}"#, .invalidField),
                (#"{"conversationId":\#(group.rawValue),"typing":true,"text":"hi"}"#, .unknownField),
            ]
            for (index, (payload, code)) in bodies.enumerated() {
                eveSocket.sendRaw(#"{"type":"typing","id":"t\#(index)","payload":\#(payload)}"#)
                let answer = try await eveSocket.waitFor { $0.id == "t\(index)" }
                #expect(try answer.payload(ParleyError.self).code == code, "\(payload)")
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(bobSocket.received.allSatisfy { $0.type != "typing" })
        }
    }
}
