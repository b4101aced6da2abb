import Foundation
import ParleyCore
import Testing

/// Only members reach a conversation; a revoked session reaches nothing.
@Suite struct AuthorizationTests {
    @Test func nonMemberCannotReadSendToOrSyncAConversation() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let eve = try await api.signUp("eve")
            let conversation = try await api.createGroup("private", by: alice, with: [bob])
            _ = try await api.sendText("secret", to: conversation, as: alice)

            let attempts: [(String, () async throws -> Void)] = [
                (
                    "history",
                    {
                        let _: HistoryPage = try await api.call(
                            .get, "/v1/conversations/\(conversation)/messages", token: eve.token)
                    }
                ),
                (
                    "detail",
                    {
                        let _: ConversationDetail = try await api.call(
                            .get, "/v1/conversations/\(conversation)", token: eve.token)
                    }
                ),
                ("send", { _ = try await api.sendText("let me in", to: conversation, as: eve) }),
                (
                    "read",
                    {
                        let _: ReadReceipt = try await api.call(
                            .post, "/v1/conversations/\(conversation)/read", ReadRequest(seq: 1), token: eve.token)
                    }
                ),
                (
                    "add",
                    {
                        let _: MembersAdded = try await api.call(
                            .post, "/v1/conversations/\(conversation)/members", AddMembersRequest(userIds: [eve.id]),
                            token: eve.token)
                    }
                ),
            ]
            for (name, attempt) in attempts {
                let failure = try await capture(attempt)
                #expect(failure?.status == 403, "\(name)")
                #expect(failure?.error.code == .notAMember, "\(name)")
            }

            let socket = try await LiveSocket.connect(api.webSocketURL, token: eve.token)
            let answer = try await socket.request(
                .send, SendMessageRequest.text("ws too", to: conversation, clientMsgId: "e1"))
            #expect(answer.type == "error")
            #expect(try answer.payload(ParleyError.self).code == .notAMember)
            let history: HistoryPage? = try? await socket.call(.history, HistoryQuery(conversationId: conversation))
            #expect(history == nil)

            let sync: SyncResponse = try await api.call(.get, "/v1/sync", token: eve.token)
            #expect(!sync.conversations.contains { $0.id == conversation })
            try await Task.sleep(for: .milliseconds(50))
            #expect(!socket.received.contains { $0.type == "message" }, "no push reaches a non-member")
            #expect(try await api.fullHistory(of: conversation, as: alice).count == 1)
            await socket.close()
        }
    }

    @Test func revokedSessionIsRejectedOverHTTPAndItsSocketIsClosed() async throws {
        try await withServer { api in
            let phone = try await api.signUp("bob", device: "phone")
            let laptop = try await api.logIn("bob", device: "laptop")
            let laptopSocket = try await LiveSocket.connect(api.webSocketURL, token: laptop.token)

            let _: EmptyBody = try await api.call(.delete, "/v1/sessions/\(laptop.sessionId)", token: phone.token)
            #expect(try await laptopSocket.waitForClose() == CloseCode.sessionRevoked.rawValue)
            let rejected = try await capture {
                let _: Account = try await api.call(.get, "/v1/me", token: laptop.token)
            }
            #expect(rejected?.status == 401)
            #expect(rejected?.error.code == .invalidToken)
            await #expect(throws: (any Error).self, "a revoked token cannot authenticate a new socket") {
                _ = try await LiveSocket.connect(api.webSocketURL, token: laptop.token)
            }

            let phoneSocket = try await LiveSocket.connect(api.webSocketURL, token: phone.token)
            let _: EmptyBody = try await api.call(.delete, "/v1/session", token: phone.token)
            #expect(try await phoneSocket.waitForClose() == CloseCode.sessionRevoked.rawValue)
            let afterLogout = try await capture {
                let _: Account = try await api.call(.get, "/v1/me", token: phone.token)
            }
            #expect(afterLogout?.error.code == .invalidToken)
        }
    }

    @Test func requestsWithoutATokenAreUnauthenticated() async throws {
        try await withServer { api in
            let (status, body, _) = try await api.raw(.get, "/v1/conversations")
            #expect(status == 401)
            #expect(try decodeJSON(ErrorBody.self, body).error.code == .unauthenticated)
            let (badStatus, badBody, _) = try await api.raw(.get, "/v1/conversations", token: "pat_forged")
            #expect(badStatus == 401)
            #expect(try decodeJSON(ErrorBody.self, badBody).error.code == .invalidToken)
        }
    }
}
