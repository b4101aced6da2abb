import Foundation
import ParleyCore
import Testing

/// The owner and admins rename a group: over HTTP and the WebSocket, every member's devices
/// hear `conversation.updated`, a member who was away sees the new name once through sync,
/// and nobody else may rename it.
@Suite struct GroupRenameTests {
    @Test func anAdminRenamesAndEveryMemberHearsItOnEveryDevice() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let group = try await api.createGroup("Team", by: alice, with: [bob, cyd])
            let alicePhone = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let cydSocket = try await LiveSocket.connect(api.webSocketURL, token: cyd.token)

            // An admin renames over HTTP.
            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)/members/\(bob.id)", UpdateMemberRequest(role: .admin),
                token: alice.token)
            let renamed: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)", UpdateGroupRequest(name: "  Launch 🚀  "), token: bob.token)
            #expect(renamed.conversation.name == "Launch 🚀", "trimmed, emoji kept")
            let expected = UserEventBody.conversationUpdated(
                ConversationUpdated(
                    conversationId: group, group: GroupProfile(name: "Launch 🚀", ownerId: alice.id), updatedBy: bob.id))
            for socket in [alicePhone, cydSocket] {
                let frame = try await socket.waitFor { $0.type == "event" && $0.text.contains("conversation.updated") }
                #expect(try frame.payload(UserEvent.self).body == expected)
            }

            // The owner renames over the WebSocket; the same name again (with `rename`, the frame's
            // earlier name) changes nothing.
            let detail: ConversationDetail = try await alicePhone.call(
                .updateGroup, UpdateGroupRequest(conversationId: group, name: "发布"))
            #expect(detail.conversation.name == "发布")
            let again: ConversationDetail = try await alicePhone.call(
                .rename, UpdateGroupRequest(conversationId: group, name: "发布"))
            #expect(again.conversation.name == "发布")
            // A real change after it is the barrier: cyd's events come in order, so an event for
            // the renaming that changed nothing would have come before this one's.
            let _: ConversationDetail = try await alicePhone.call(
                .updateGroup, UpdateGroupRequest(conversationId: group, name: "发布 2"))
            _ = try await cydSocket.waitFor { $0.type == "event" && $0.text.contains("发布 2") }
            let updates = cydSocket.received.filter { $0.text.contains("conversation.updated") }
            #expect(updates.count == 3, "one event per real change, none for renaming to the same name")
            let seen: ConversationDetail = try await api.call(.get, "/v1/conversations/\(group)", token: cyd.token)
            #expect(seen.conversation.name == "发布 2")
        }
    }

    @Test func aMemberWhoWasAwaySeesTheNewNameOnceThroughSync() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let group = try await api.createGroup("Before", by: alice, with: [bob])
            let snapshot: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)

            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)", UpdateGroupRequest(name: "After"), token: alice.token)

            let changes: SyncResponse = try await api.call(
                .get, "/v1/sync?cursor=\(snapshot.cursor)", token: bob.token)
            #expect(changes.conversations.map(\.id) == [group])
            #expect(changes.conversations.first?.name == "After")
            #expect(
                changes.events.map(\.body) == [
                    .conversationUpdated(
                        ConversationUpdated(
                            conversationId: group, group: GroupProfile(name: "After", ownerId: alice.id),
                            updatedBy: alice.id))
                ])
            let nothingNew: SyncResponse = try await api.call(
                .get, "/v1/sync?cursor=\(changes.cursor)", token: bob.token)
            #expect(nothingNew.conversations.isEmpty && nothingNew.events.isEmpty)
        }
    }

    /// Each caller against each kind of conversation: only members rename, only groups.
    @Test func onlyTheOwnerAndAdminsRenameAndOnlyGroups() async throws {
        try await withServer { api in
            let owner = try await api.signUp("owner")
            let member = try await api.signUp("member")
            let outsider = try await api.signUp("outsider")
            let group = try await api.createGroup("Group", by: owner, with: [member])
            let direct: ConversationDetail = try await api.call(
                .post, "/v1/conversations/direct", OpenDirectRequest(userId: member.id), token: owner.token)

            let cases: [(who: TestUser?, conversation: ConversationID, status: Int?, code: ErrorCode?)] = [
                (owner, group, nil, nil),
                (member, group, 403, .forbidden),
                (outsider, group, 403, .notAMember),
                (nil, group, 401, .unauthenticated),
                (owner, direct.conversation.id, 403, .forbidden),
                (member, direct.conversation.id, 403, .forbidden),
                (outsider, direct.conversation.id, 403, .notAMember),
                (owner, ConversationID(999_999), 404, .conversationNotFound),
            ]
            for (index, test) in cases.enumerated() {
                let failure = try await capture {
                    let _: ConversationDetail = try await api.call(
                        .patch, "/v1/conversations/\(test.conversation)", UpdateGroupRequest(name: "name \(index)"),
                        token: test.who?.token)
                }
                #expect(failure?.status == test.status, "case \(index)")
                #expect(failure?.error.code == test.code, "case \(index)")
            }
            let outsiderSocket = try await LiveSocket.connect(api.webSocketURL, token: outsider.token)
            let answer = try await outsiderSocket.request(
                .updateGroup, UpdateGroupRequest(conversationId: group, name: "mine now"))
            #expect(try answer.payload(ParleyError.self).code == .notAMember)
            let detail: ConversationDetail = try await api.call(.get, "/v1/conversations/\(group)", token: owner.token)
            #expect(detail.conversation.name == "name 0", "the owner's rename, the only one permitted")
        }
    }

    @Test func badNamesAndBodiesGetPreciseErrorsAndChangeNothing() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let group = try await api.createGroup("Kept", by: alice, with: [bob])
            let path = "/v1/conversations/\(group)"
            let bodies: [(String, ErrorCode, String)] = [
                (#"{"name":""}"#, .invalidField, "'name' must be 1 to 64 characters long."),
                (#"{"name":"   "}"#, .invalidField, "'name' must be 1 to 64 characters long."),
                (
                    #"{"name":"\#(String(repeating: "名", count: 65))"}"#, .invalidField,
                    "'name' must be 1 to 64 characters long."
                ),
                (#"{"name":"a\u0007b"}"#, .invalidField, "'name' must not contain control characters."),
                (#"{"name":5}"#, .invalidField, "Field 'name' has the wrong type."),
                (#"{}"#, .missingField, "Give at least one of the group's fields to change."),
                (#"{"name":"x","topic":"y"}"#, .unknownField, "Unknown field 'topic'."),
                (
                    #"{"conversationId":\#(group.rawValue + 1),"name":"x"}"#, .invalidField,
                    "'conversationId' in the body differs from the path."
                ),
            ]
            for (body, code, message) in bodies {
                let (status, text, _) = try await api.raw(.patch, path, body: body, token: alice.token)
                #expect(status == 400, "\(body)")
                let error = try decodeJSON(ErrorBody.self, text).error
                #expect(error.code == code, "\(body)")
                #expect(error.message == message, "\(body)")
            }
            let exactlyMax = String(repeating: "名", count: 64)
            let longest: ConversationDetail = try await api.call(
                .patch, path, UpdateGroupRequest(name: exactlyMax), token: alice.token)
            #expect(longest.conversation.name == exactlyMax, "64 characters is allowed, counted as characters")

            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let missing = try await socket.request(.updateGroup, UpdateGroupRequest(name: "no conversation"))
            #expect(try missing.payload(ParleyError.self).code == .missingField)
            #expect(try missing.payload(ParleyError.self).message == "Missing field 'payload.conversationId'.")
            let detail: ConversationDetail = try await api.call(.get, path, token: bob.token)
            #expect(detail.conversation.name == exactlyMax)
        }
    }
}
