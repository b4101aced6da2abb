import Foundation
import ParleyCore
import Testing

/// A user's own conversation settings (pinned, muted, hidden, draft) reach all their devices,
/// live and through sync, and nobody else; bad input changes nothing.
@Suite struct SettingsTests {
    @Test func settingsReachEveryDeviceOfTheUserOnceAndNoOtherMember() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice", device: "phone")
            let aliceLaptop = try await api.logIn("alice", device: "laptop")
            let bob = try await api.signUp("bob")
            let group = try await api.createGroup("Team", by: alice, with: [bob])
            let away: SyncResponse = try await api.call(.get, "/v1/sync", token: aliceLaptop.token)
            let laptop = try await LiveSocket.connect(api.webSocketURL, token: aliceLaptop.token)
            let bobSocket = try await LiveSocket.connect(api.webSocketURL, token: bob.token)
            let path = "/v1/conversations/\(group)/settings"

            let pinned: ConversationSummary = try await api.call(
                .patch, path, UpdateSettingsRequest(pinned: true, muted: true, draft: "see you at 10\nbring"),
                token: alice.token)
            let settings = pinned.settings
            #expect(settings.pinnedAt != nil && settings.muted && settings.draft == "see you at 10\nbring")
            #expect(settings.draftSavedAt == settings.pinnedAt)
            let heard = try await laptop.waitFor { $0.text.contains("settings.updated") }
            #expect(
                try heard.payload(UserEvent.self).body
                    == SettingsUpdated(conversationId: group, settings: settings).body)

            let again: ConversationSummary = try await api.call(
                .patch, path, UpdateSettingsRequest(pinned: true), token: alice.token)
            #expect(again.settings == settings, "pinning again keeps the first pin time and changes nothing")

            let changes: SyncResponse = try await api.call(
                .get, "/v1/sync?cursor=\(away.cursor)", token: aliceLaptop.token)
            #expect(changes.events.map(\.type) == [.settingsUpdated], "once")
            #expect(changes.conversations.map(\.id) == [group])
            #expect(changes.conversations.first?.settings == settings)

            let bobsView: ConversationDetail = try await api.call(.get, "/v1/conversations/\(group)", token: bob.token)
            #expect(bobsView.conversation.settings == ConversationSettings(), "bob's settings are his own")
            try await Task.sleep(for: .milliseconds(200))
            #expect(!bobSocket.received.contains { $0.text.contains("settings.updated") })
            #expect(laptop.received.filter { $0.text.contains("settings.updated") }.count == 1)
            await laptop.close()
            await bobSocket.close()
        }
    }

    @Test func aHiddenConversationComesBackWithANewMessageAndADraftClears() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let group = try await api.createGroup("Team", by: alice, with: [bob])
            _ = try await api.sendText("one", to: group, as: bob)
            let path = "/v1/conversations/\(group)/settings"

            let hidden: ConversationSummary = try await api.call(
                .patch, path, UpdateSettingsRequest(hidden: true, draft: "unsent"), token: alice.token)
            #expect(hidden.settings.hiddenUpToSeq == 1)
            #expect(hidden.settings.hides(maxSeq: hidden.maxSeq))
            _ = try await api.sendText("two", to: group, as: bob)
            let after: ConversationDetail = try await api.call(.get, "/v1/conversations/\(group)", token: alice.token)
            #expect(!after.conversation.settings.hides(maxSeq: after.conversation.maxSeq), "a new message shows it")

            let cleared: ConversationSummary = try await api.call(
                .patch, path, UpdateSettingsRequest(pinned: false, hidden: false, draft: ""), token: alice.token)
            #expect(cleared.settings == ConversationSettings())
        }
    }

    @Test func badSettingsGetPreciseErrorsAndChangeNothing() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let eve = try await api.signUp("eve")
            let group = try await api.createGroup("Team", by: alice, with: [bob])
            let path = "/v1/conversations/\(group)/settings"
            let cases: [(String, String, Int, ErrorCode, String)] = [
                (
                    alice.token, #"{}"#, 400, .missingField,
                    "Give at least one of 'pinned', 'muted', 'hidden', 'draft' and 'clearUpToSeq'."
                ),
                (
                    alice.token, #"{"draft":"\#(String(repeating: "d", count: Limits.maxTextLength + 1))"}"#, 400,
                    .invalidField, "'draft' may have at most \(Limits.maxTextLength) characters."
                ),
                (
                    alice.token, #"{"draft":"a\u0007b"}"#, 400, .invalidField,
                    "'draft' must not contain control characters other than newline, carriage return and tab."
                ),
                (alice.token, #"{"pinned":"yes"}"#, 400, .invalidField, "Field 'pinned' has the wrong type."),
                (alice.token, #"{"starred":true}"#, 400, .unknownField, "Unknown field 'starred'."),
                (eve.token, #"{"pinned":true}"#, 403, .notAMember, "You are not a member of conversation \(group)."),
            ]
            for (token, body, status, code, message) in cases {
                let (got, text, _) = try await api.raw(.patch, path, body: body, token: token)
                #expect(got == status, "\(body)")
                let error = try decodeJSON(ErrorBody.self, text).error
                #expect(error.code == code, "\(body)")
                #expect(error.message == message, "\(body)")
            }
            let detail: ConversationDetail = try await api.call(.get, "/v1/conversations/\(group)", token: alice.token)
            #expect(detail.conversation.settings == ConversationSettings())
            let sync: SyncResponse = try await api.call(.get, "/v1/sync", token: alice.token)
            #expect(sync.conversations.first?.settings == ConversationSettings())
        }
    }
}
