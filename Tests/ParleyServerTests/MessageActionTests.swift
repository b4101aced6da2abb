import Foundation
import HTTPTypes
import ParleyCore
import ParleyServer
import Testing

/// Recall, edit, reply, forward, mentions, delete and clear for me, and receipts, through the
/// real server: what each does, what it refuses (changing nothing), and what a device that was
/// away sees afterwards.
@Suite struct MessageActionTests {
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    func send(
        _ api: TestAPI, _ kind: MessageKind, _ content: JSONValue, to conversationId: ConversationID, as user: TestUser
    ) async throws -> Message {
        let response: SendMessageResponse = try await api.call(
            .post, "/v1/messages",
            SendMessageRequest(
                conversationId: conversationId, clientMsgId: UUID().uuidString, kind: kind, content: content),
            token: user.token)
        return response.message
    }

    func summary(_ api: TestAPI, _ id: ConversationID, for user: TestUser) async throws -> ConversationSummary {
        let detail: ConversationDetail = try await api.call(.get, "/v1/conversations/\(id)", token: user.token)
        return detail.conversation
    }

    func recall(_ api: TestAPI, _ message: Message, as user: TestUser) async throws -> Message {
        try await api.call(.post, "/v1/messages/\(message.id)/recall", token: user.token)
    }

    @Test func aRecallDeletesTheContentEverywhereAndReachesEveryMemberOnceLiveAndThroughSync() async throws {
        let clock = TestClock(Self.now())
        try await withServer(clock: clock.wallClock) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let group = try await api.createGroup("team", by: alice, with: [bob, cyd])
            let before: SyncResponse = try await api.call(.get, "/v1/sync", token: cyd.token)
            let bobSocket = try await LiveSocket.connect(api.webSocketURL, token: bob.token)

            let secret = try await send(
                api, .text, ["text": "the password is hunter2", "mentions": [.number(.integer(cyd.id.rawValue))]],
                to: group, as: bob)
            let reply = try await send(
                api, .reply, ["text": "noted", "replyTo": .number(.integer(secret.id.rawValue))], to: group, as: alice)
            #expect(reply.quote == MessageQuote(of: secret))
            #expect(reply.quote?.text == "the password is hunter2")
            #expect(try await summary(api, group, for: cyd).unreadMentions == 1)

            clock.advance(119_000)
            let recalled = try await recall(api, secret, as: bob)
            #expect(recalled.kind == .recalled)
            #expect(recalled.content == ["recalledBy": .number(.integer(bob.id.rawValue))])
            #expect(recalled.seq == secret.seq && recalled.id == secret.id)

            // Live: bob's own socket hears it as an event; the content is gone from every read.
            let pushed = try await bobSocket.waitFor { $0.type == "event" && $0.text.contains("message.updated") }
            #expect(
                try pushed.payload(UserEvent.self).body
                    == .messageUpdated(MessageUpdated(message: recalled, updatedBy: bob.id)))
            for user in [alice, bob, cyd] {
                let history = try await api.fullHistory(of: group, as: user)
                #expect(history.first { $0.seq == secret.seq } == recalled, "\(user.username) sees the recalled form")
                #expect(!history.description.contains("hunter2"), "\(user.username): the content is gone")
                #expect(history.first { $0.seq == reply.seq }?.quote?.kind == .recalled)
                #expect(history.first { $0.seq == reply.seq }?.quote?.text == nil)
            }
            #expect(try await summary(api, group, for: cyd).unreadMentions == 0, "a recalled mention no longer counts")

            // Cyd was away through both: her sync has the recall once, and history the recalled form.
            let after: SyncResponse = try await api.call(
                .get, "/v1/sync?cursor=\(before.cursor)", token: cyd.token)
            let updates = after.events.filter { $0.type == .messageUpdated }
            #expect(updates.count == 1)
            #expect(updates.first?.body == .messageUpdated(MessageUpdated(message: recalled, updatedBy: bob.id)))
            let again: SyncResponse = try await api.call(.get, "/v1/sync?cursor=\(after.cursor)", token: cyd.token)
            #expect(again.events.isEmpty, "exactly once")

            // Refusals change nothing.
            let twice = try await capture { _ = try await recall(api, secret, as: bob) }
            #expect(twice?.status == 409)
            #expect(twice?.error.code == .messageRecalled)
            let quoting = try await capture {
                _ = try await send(
                    api, .reply, ["text": "x", "replyTo": .number(.integer(secret.id.rawValue))], to: group, as: cyd)
            }
            #expect(quoting?.error.code == .messageRecalled)
            let forwarding = try await capture {
                let _: SendMessageResponse = try await api.call(
                    .post, "/v1/messages/forward",
                    ForwardMessageRequest(messageId: secret.id, conversationId: group, clientMsgId: "f1"),
                    token: cyd.token)
            }
            #expect(forwarding?.error.code == .messageRecalled)
            #expect(try await summary(api, group, for: alice).maxSeq == reply.seq)
            await bobSocket.close()
        }
    }

    @Test func theRecallWindowBindsSendersButNotTheGroupsOwnerAndAdmins() async throws {
        let clock = TestClock(Self.now())
        try await withServer(clock: clock.wallClock, configure: { $0.messageWindows.recallMs = 60_000 }) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let group = try await api.createGroup("team", by: alice, with: [bob, cyd])
            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)/members/\(cyd.id)", UpdateMemberRequest(role: .admin),
                token: alice.token)
            let bobs = try await api.sendText("one", to: group, as: bob).message
            let cyds = try await api.sendText("two", to: group, as: cyd).message
            let alices = try await api.sendText("three", to: group, as: alice).message
            clock.advance(60_001)

            let late = try await capture { _ = try await recall(api, bobs, as: bob) }
            #expect(late?.status == 403)
            #expect(late?.error.code == .recallWindowPassed)
            #expect(late?.error.message == "A message can be recalled for 60 seconds after it was sent.")
            let adminOnOwner = try await capture { _ = try await recall(api, alices, as: cyd) }
            #expect(adminOnOwner?.error.code == .notMessageSender)
            let memberOnAdmin = try await capture { _ = try await recall(api, cyds, as: bob) }
            #expect(memberOnAdmin?.error.code == .notMessageSender)
            #expect(try await api.fullHistory(of: group, as: bob).filter { $0.kind == .recalled }.isEmpty)

            #expect(try await recall(api, bobs, as: cyd).kind == .recalled, "an admin recalls a member's at any time")
            #expect(try await recall(api, cyds, as: cyd).kind == .recalled, "and their own")
            #expect(try await recall(api, alices, as: alice).kind == .recalled, "the owner any")

            // In a direct conversation only the sender recalls, within the window.
            let direct: SendMessageResponse = try await api.call(
                .post, "/v1/messages",
                SendMessageRequest(toUserId: bob.id, clientMsgId: "d1", kind: .text, content: ["text": "hi"]),
                token: alice.token)
            let peer = try await capture { _ = try await recall(api, direct.message, as: bob) }
            #expect(peer?.error.code == .notMessageSender)
            let notice = try await api.fullHistory(of: group, as: alice).first { $0.kind == .system }!
            let system = try await capture { _ = try await recall(api, notice, as: alice) }
            #expect(system?.status == 403)
            #expect(system?.error.code == .forbidden)
            let unknown = try await capture {
                let _: Message = try await api.call(.post, "/v1/messages/999999/recall", token: alice.token)
            }
            #expect(unknown?.status == 404)
            #expect(unknown?.error.code == .messageNotFound)
            let outsider = try await api.signUp("dan")
            let stranger = try await capture { _ = try await recall(api, direct.message, as: outsider) }
            #expect(stranger?.error.code == .messageNotFound, "a message one cannot read does not exist for them")
        }
    }

    @Test func anEditReplacesTheTextWithinItsWindowAndUpdatesQuotes() async throws {
        let clock = TestClock(Self.now())
        try await withServer(clock: clock.wallClock) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let group = try await api.createGroup("team", by: alice, with: [bob])
            let before: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)
            let original = try await api.sendText("lunch at 12", to: group, as: alice).message
            let reply = try await send(
                api, .reply, ["text": "ok", "replyTo": .number(.integer(original.id.rawValue))], to: group, as: bob)
            clock.advance(60_000)
            let edited: Message = try await api.call(
                .patch, "/v1/messages/\(original.id)", EditMessageRequest(text: "lunch at 1"), token: alice.token)
            #expect(edited.content == ["text": "lunch at 1"])
            #expect(edited.editedAt == clock.wallClock.now())
            let history = try await api.fullHistory(of: group, as: bob)
            #expect(history.first { $0.id == original.id } == edited)
            #expect(history.first { $0.id == reply.id }?.quote?.text == "lunch at 1")
            let synced: SyncResponse = try await api.call(.get, "/v1/sync?cursor=\(before.cursor)", token: bob.token)
            #expect(
                synced.events.filter { $0.type == .messageUpdated }.map(\.body) == [
                    .messageUpdated(MessageUpdated(message: edited, updatedBy: alice.id))
                ])

            // The same over the WebSocket.
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let overSocket: Message = try await socket.call(
                .edit, EditMessageRequest(messageId: original.id, text: "lunch at 1:30"))
            #expect(overSocket.content == ["text": "lunch at 1:30"])
            #expect(
                overSocket.editedAt == edited.editedAt! + 1,
                "a second edit in the same millisecond is still later, so devices keep it")
            let noId = try await socket.request(.edit, EditMessageRequest(text: "x"))
            #expect(try noId.payload(ParleyError.self).code == .missingField)
            let recalledOverSocket: Message = try await socket.call(.recall, RecallRequest(messageId: reply.id))
            #expect(recalledOverSocket.kind == .recalled)
            await socket.close()
            let mismatch = try await capture {
                let _: Message = try await api.call(
                    .patch, "/v1/messages/\(original.id)", EditMessageRequest(messageId: reply.id, text: "x"),
                    token: alice.token)
            }
            #expect(mismatch?.error.code == .invalidField)
            let others = try await capture {
                let _: Message = try await api.call(
                    .patch, "/v1/messages/\(original.id)", EditMessageRequest(text: "mine now"), token: bob.token)
            }
            #expect(others?.error.code == .notMessageSender)
            let empty = try await capture {
                let _: Message = try await api.call(
                    .patch, "/v1/messages/\(original.id)", EditMessageRequest(text: "  "), token: alice.token)
            }
            #expect(empty?.status == 400)
            #expect(empty?.error.code == .messageInvalid)
            let picture = try await api.upload(testPNG(100), as: alice)
            let image = try await send(
                api, .image, ["fileId": .string(picture.fileId), "width": 2, "height": 2], to: group, as: alice)
            let notText = try await capture {
                let _: Message = try await api.call(
                    .patch, "/v1/messages/\(image.id)", EditMessageRequest(text: "x"), token: alice.token)
            }
            #expect(notText?.error.code == .messageNotEditable)
            clock.advance(Limits.defaultEditWindowSeconds * 1000)
            let late = try await capture {
                let _: Message = try await api.call(
                    .patch, "/v1/messages/\(original.id)", EditMessageRequest(text: "lunch at 2"), token: alice.token)
            }
            #expect(late?.error.code == .editWindowPassed)
            #expect(try await api.fullHistory(of: group, as: bob).first { $0.id == original.id } == overSocket)
        }
    }

    @Test func repliesQuoteTheirOwnConversationOnly() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let group = try await api.createGroup("team", by: alice, with: [bob])
            let other = try await api.createGroup("other", by: alice, with: [])
            let elsewhere = try await api.sendText("elsewhere", to: other, as: alice).message
            let outside = try await capture {
                _ = try await send(
                    api, .reply, ["text": "x", "replyTo": .number(.integer(elsewhere.id.rawValue))], to: group,
                    as: alice)
            }
            #expect(outside?.status == 400)
            #expect(outside?.error.code == .replyOutsideConversation)
            let unseen = try await capture {
                _ = try await send(
                    api, .reply, ["text": "x", "replyTo": .number(.integer(elsewhere.id.rawValue))], to: group, as: bob)
            }
            #expect(unseen?.status == 404, "bob cannot read the other group: its message does not exist for him")
            #expect(unseen?.error.code == .messageNotFound)
            let unknown = try await capture {
                _ = try await send(api, .reply, ["text": "x", "replyTo": 999_999], to: group, as: alice)
            }
            #expect(unknown?.status == 404)
            #expect(unknown?.error.code == .messageNotFound)
            let notice = try await api.fullHistory(of: group, as: alice).first { $0.kind == .system }
            if let notice {
                let system = try await capture {
                    _ = try await send(
                        api, .reply, ["text": "x", "replyTo": .number(.integer(notice.id.rawValue))], to: group,
                        as: alice)
                }
                #expect(system?.error.code == .messageInvalid)
            }
            let long = String(repeating: "长", count: 300)
            let target = try await api.sendText(long, to: group, as: bob).message
            let reply = try await send(
                api, .reply, ["text": "!", "replyTo": .number(.integer(target.id.rawValue))], to: group, as: alice)
            #expect(reply.quote?.text == String(repeating: "长", count: Limits.quoteSnippetLength))
            #expect(reply.quote?.senderId == bob.id)
            #expect(try await summary(api, group, for: bob).lastMessage?.quote == reply.quote)
            #expect(try await summary(api, group, for: alice).maxSeq == reply.seq, "refused replies stored nothing")
        }
    }

    @Test func aForwardIsANewIdempotentMessageThatSaysSo() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let team = try await api.createGroup("team", by: alice, with: [bob])
            let family = try await api.createGroup("family", by: alice, with: [cyd])
            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(team)", UpdateGroupRequest(description: "work"), token: alice.token)
            let picture = try await api.upload(testPNG(100), as: bob)
            let image = try await send(
                api, .image, ["fileId": .string(picture.fileId), "width": 4, "height": 3], to: team, as: bob)
            let text = try await api.sendText("anchor", to: team, as: bob).message
            let reply = try await send(
                api, .reply,
                [
                    "text": "see @alice", "replyTo": .number(.integer(text.id.rawValue)),
                    "mentions": [.number(.integer(alice.id.rawValue))],
                ], to: team, as: bob)

            var forwarded: [Message] = []
            for (index, source) in [image, reply].enumerated() {
                for target in [family] {
                    let response: SendMessageResponse = try await api.call(
                        .post, "/v1/messages/forward",
                        ForwardMessageRequest(messageId: source.id, conversationId: target, clientMsgId: "fw-\(index)"),
                        token: alice.token)
                    #expect(!response.duplicate)
                    forwarded.append(response.message)
                }
            }
            let toBob: SendMessageResponse = try await api.call(
                .post, "/v1/messages/forward",
                ForwardMessageRequest(messageId: image.id, toUserId: cyd.id, clientMsgId: "fw-direct"),
                token: alice.token)
            #expect(toBob.message.content == image.content && toBob.message.isForwarded)
            #expect(
                forwarded[0].kind == .image && forwarded[0].content == image.content, "the same file, not re-uploaded")
            #expect(forwarded[0].isForwarded && forwarded[0].senderId == alice.id)
            #expect(forwarded[1].kind == .text && forwarded[1].content == ["text": "see @alice"])
            #expect(forwarded[1].quote == nil)
            let retry: SendMessageResponse = try await api.call(
                .post, "/v1/messages/forward",
                ForwardMessageRequest(messageId: image.id, conversationId: family, clientMsgId: "fw-0"),
                token: alice.token)
            #expect(retry.duplicate && retry.message == forwarded[0])
            _ = try await recall(api, image, as: bob)
            let retryAfterRecall: SendMessageResponse = try await api.call(
                .post, "/v1/messages/forward",
                ForwardMessageRequest(messageId: image.id, conversationId: family, clientMsgId: "fw-0"),
                token: alice.token)
            #expect(retryAfterRecall.duplicate && retryAfterRecall.message == forwarded[0], "a retry stays idempotent")
            #expect(try await api.fullHistory(of: family, as: cyd).filter(\.isForwarded) == forwarded)

            let unreadable = try await capture {
                let _: SendMessageResponse = try await api.call(
                    .post, "/v1/messages/forward",
                    ForwardMessageRequest(messageId: image.id, conversationId: family, clientMsgId: "fw-cyd"),
                    token: cyd.token)
            }
            #expect(unreadable?.status == 404)
            #expect(unreadable?.error.code == .messageNotFound)
            let notice = try await api.fullHistory(of: team, as: alice).first { $0.kind == .system }!
            let system = try await capture {
                let _: SendMessageResponse = try await api.call(
                    .post, "/v1/messages/forward",
                    ForwardMessageRequest(messageId: notice.id, conversationId: family, clientMsgId: "fw-n"),
                    token: alice.token)
            }
            #expect(system?.status == 400)
            #expect(system?.error.code == .messageNotForwardable)
            let both = try await capture {
                let _: SendMessageResponse = try await api.call(
                    .post, "/v1/messages/forward",
                    ForwardMessageRequest(
                        messageId: image.id, conversationId: family, toUserId: cyd.id, clientMsgId: "x"),
                    token: alice.token)
            }
            #expect(both?.error.code == .invalidField)
            #expect(try await summary(api, family, for: alice).maxSeq == forwarded[1].seq)
        }
    }

    @Test func mentionsCountUntilReadAndOnlyManagersMentionEveryone() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let outsider = try await api.signUp("dan")
            let group = try await api.createGroup("team", by: alice, with: [bob, cyd])
            let id = { (user: TestUser) in JSONValue.number(.integer(user.id.rawValue)) }
            _ = try await send(
                api, .text, ["text": "@bob @dan @me", "mentions": [id(bob), id(outsider), id(cyd)]], to: group, as: cyd)
            let all = try await send(api, .text, ["text": "@all", "mentionAll": true], to: group, as: alice)
            #expect(try await summary(api, group, for: bob).unreadMentions == 2)
            #expect(
                try await summary(api, group, for: cyd).unreadMentions == 1, "her own mention of herself does not count"
            )
            #expect(try await summary(api, group, for: alice).unreadMentions == 0, "nor the sender's @all")

            let refused = try await capture {
                _ = try await send(api, .text, ["text": "@all", "mentionAll": true], to: group, as: bob)
            }
            #expect(refused?.status == 403)
            #expect(refused?.error.code == .mentionAllNotAllowed)
            let direct: SendMessageResponse = try await api.call(
                .post, "/v1/messages",
                SendMessageRequest(toUserId: bob.id, clientMsgId: "d", kind: .text, content: ["text": "hi"]),
                token: alice.token)
            let inDirect = try await capture {
                _ = try await send(
                    api, .text, ["text": "@all", "mentionAll": true], to: direct.message.conversationId, as: alice)
            }
            #expect(inDirect?.error.code == .mentionAllNotAllowed)
            let tooMany = try await capture {
                _ = try await send(
                    api, .text,
                    ["text": "x", "mentions": .array((1...101).map { .number(.integer(Int64($0))) })], to: group,
                    as: alice)
            }
            #expect(tooMany?.error.code == .messageInvalid)

            // The counter is in every summary, so a device that syncs sees it; reading clears it.
            let synced: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)
            #expect(synced.conversations.first { $0.id == group }?.unreadMentions == 2)
            let _: ReadReceipt = try await api.call(
                .post, "/v1/conversations/\(group)/read", ReadRequest(seq: all.seq - 1), token: bob.token)
            #expect(try await summary(api, group, for: bob).unreadMentions == 1)
            let _: ReadReceipt = try await api.call(
                .post, "/v1/conversations/\(group)/read", ReadRequest(seq: all.seq), token: bob.token)
            #expect(try await summary(api, group, for: bob).unreadMentions == 0)
            _ = try await send(
                api, .text, ["text": "@bob and @all", "mentions": [id(bob)], "mentionAll": true], to: group, as: alice)
            #expect(try await summary(api, group, for: bob).unreadMentions == 1, "one message counts once")
            let opened: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)", UpdateGroupRequest(everyoneMayMentionAll: true),
                token: alice.token)
            #expect(opened.conversation.group?.everyoneMayMentionAll == true)
            let notice = try await api.fullHistory(of: group, as: bob).last
            #expect(notice?.typedContent == .system(SystemNotice(.mentionAllOpened, by: alice.id)))
            _ = try await send(api, .text, ["text": "@all from bob", "mentionAll": true], to: group, as: bob)
            #expect(try await summary(api, group, for: cyd).unreadMentions == 3, "the group lets members use @all now")
            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)", UpdateGroupRequest(everyoneMayMentionAll: false),
                token: alice.token)
            let closed = try await capture {
                _ = try await send(api, .text, ["text": "@all", "mentionAll": true], to: group, as: bob)
            }
            #expect(closed?.error.code == .mentionAllNotAllowed)

            // A clear covers its mentions as reading does (cyd read below it), until the next mention.
            let last = try await api.fullHistory(of: group, as: cyd).last!.seq
            let _: ConversationSummary = try await api.call(
                .patch, "/v1/conversations/\(group)/settings", UpdateSettingsRequest(clearUpToSeq: last),
                token: cyd.token)
            #expect(try await summary(api, group, for: cyd).unreadMentions == 0, "cleared mentions are not unread")
            _ = try await send(api, .text, ["text": "@cyd", "mentions": [id(cyd)]], to: group, as: alice)
            #expect(try await summary(api, group, for: cyd).unreadMentions == 1, "a mention after the clear is")
        }
    }

    @Test func deleteAndClearForMeReachMyOtherDevicesAndNobodyElse() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let bobLaptop = try await api.logIn("bob", device: "laptop")
            let group = try await api.createGroup("team", by: alice, with: [bob])
            let laptopBefore: SyncResponse = try await api.call(.get, "/v1/sync", token: bobLaptop.token)
            var sent: [Message] = []
            for index in 1...4 { sent.append(try await api.sendText("m\(index)", to: group, as: alice).message) }

            let deleted: MessagesDeleted = try await api.call(
                .post, "/v1/conversations/\(group)/messages/delete",
                DeleteMessagesRequest(seqs: [sent[3].seq, sent[1].seq, sent[1].seq]), token: bob.token)
            #expect(deleted == MessagesDeleted(conversationId: group, seqs: [sent[1].seq, sent[3].seq]))
            let bobs = try await api.fullHistory(of: group, as: bobLaptop)
            #expect(bobs.first { $0.seq == sent[1].seq }?.kind == .deleted)
            #expect(bobs.first { $0.seq == sent[1].seq }?.content == [:])
            #expect(bobs.first { $0.seq == sent[0].seq } == sent[0])
            #expect(try await summary(api, group, for: bob).lastMessage?.kind == .deleted)
            #expect(try await api.fullHistory(of: group, as: alice).suffix(4) == ArraySlice(sent), "alice keeps all")
            let laptop: SyncResponse = try await api.call(
                .get, "/v1/sync?cursor=\(laptopBefore.cursor)", token: bobLaptop.token)
            #expect(laptop.events.map(\.body).contains(.messagesDeleted(deleted)))

            let cleared: ConversationSettings = try await api.call(
                .patch, "/v1/conversations/\(group)/settings", UpdateSettingsRequest(clearUpToSeq: sent[2].seq),
                token: bob.token, as: ConversationSummary.self
            ).settings
            #expect(cleared.clearedUpToSeq == sent[2].seq)
            let afterClear = try await api.fullHistory(of: group, as: bobLaptop)
            #expect(afterClear.map(\.seq) == [sent[3].seq])
            let backwards: ConversationSettings = try await api.call(
                .patch, "/v1/conversations/\(group)/settings", UpdateSettingsRequest(clearUpToSeq: 1),
                token: bob.token, as: ConversationSummary.self
            ).settings
            #expect(backwards.clearedUpToSeq == sent[2].seq, "a clear only moves forward")
            let beyond: ConversationSettings = try await api.call(
                .patch, "/v1/conversations/\(group)/settings", UpdateSettingsRequest(clearUpToSeq: 10_000),
                token: bob.token, as: ConversationSummary.self
            ).settings
            #expect(beyond.clearedUpToSeq == sent[3].seq, "clamped to the last seq")
            #expect(try await summary(api, group, for: bob).lastMessage == nil)
            #expect(try await api.fullHistory(of: group, as: bob).isEmpty)
            #expect(
                try await api.fullHistory(of: group, as: alice).count == Int(sent[3].seq), "nothing removed for others")

            for seqs: [Int64] in [[], [0], [sent[3].seq + 1], Array(1...101)] {
                let bad = try await capture {
                    let _: MessagesDeleted = try await api.call(
                        .post, "/v1/conversations/\(group)/messages/delete", DeleteMessagesRequest(seqs: seqs),
                        token: alice.token)
                }
                #expect(bad?.status == 400, "\(seqs.prefix(3))")
                #expect(bad?.error.code == .invalidField)
            }
            #expect(try await api.fullHistory(of: group, as: alice).allSatisfy { $0.kind != .deleted })
        }
    }

    @Test func directReceiptsSayDeliveredAndReadAndGroupsSayWhoRead() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let aliceSocket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let first: SendMessageResponse = try await aliceSocket.call(
                .send, SendMessageRequest(toUserId: bob.id, clientMsgId: "r1", kind: .text, content: ["text": "hi"]))
            let direct = first.message.conversationId
            let bobSocket = try await LiveSocket.connect(api.webSocketURL, token: bob.token)
            let receipt: ReadReceipt = try await bobSocket.call(
                .delivered, ReadRequest(conversationId: direct, seq: first.message.seq))
            #expect(receipt == ReadReceipt(conversationId: direct, userId: bob.id, seq: first.message.seq))
            let frame = try await aliceSocket.waitFor { $0.type == "delivered" }
            #expect(try frame.payload(ReadReceipt.self) == receipt)
            let summary = try await summary(api, direct, for: alice)
            #expect(summary.othersDeliveredSeq == first.message.seq)
            #expect(summary.othersReadSeq == 0)
            let repeated: ReadReceipt = try await api.call(
                .post, "/v1/conversations/\(direct)/delivered", ReadRequest(seq: 0), token: bob.token)
            #expect(repeated.seq == first.message.seq, "the watermark does not move back")

            let group = try await api.createGroup("team", by: alice, with: [bob, cyd])
            let message = try await api.sendText("read me", to: group, as: alice).message
            let _: ReadReceipt = try await api.call(
                .post, "/v1/conversations/\(group)/read", ReadRequest(seq: message.seq), token: bob.token)
            let _: ReadReceipt = try await api.call(
                .post, "/v1/conversations/\(group)/delivered", ReadRequest(seq: message.seq), token: cyd.token)
            let readers: MessageReaders = try await api.call(
                .get, "/v1/conversations/\(group)/messages/\(message.seq)/readers", token: alice.token)
            #expect(readers == MessageReaders(seq: message.seq, readBy: [bob.id], unreadBy: [cyd.id]))
            let receipts: ReceiptList = try await api.call(
                .get, "/v1/conversations/\(group)/receipts", token: cyd.token)
            #expect(receipts.members.first { $0.userId == cyd.id }?.deliveredSeq == message.seq)
            #expect(receipts.members.first { $0.userId == bob.id }?.readSeq == message.seq)
            #expect(receipts.readers(of: message.seq, sentBy: alice.id) == readers)
            let missing = try await capture {
                let _: MessageReaders = try await api.call(
                    .get, "/v1/conversations/\(group)/messages/\(message.seq + 1)/readers", token: alice.token)
            }
            #expect(missing?.status == 404)
            #expect(missing?.error.code == .messageNotFound)
            let outsider = try await api.signUp("dan")
            let stranger = try await capture {
                let _: ReceiptList = try await api.call(
                    .get, "/v1/conversations/\(group)/receipts", token: outsider.token)
            }
            #expect(stranger?.error.code == .notAMember)
            await aliceSocket.close()
            await bobSocket.close()
        }
    }

    @Test func malformedBodiesGetPreciseErrorsAndChangeNothing() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let group = try await api.createGroup("team", by: alice, with: [])
            let message = try await api.sendText("hi", to: group, as: alice).message
            let cases: [(String, String, String, ErrorCode)] = [
                ("POST", "/v1/conversations/\(group)/messages/delete", #"{"seqs":[1.5]}"#, .invalidField),
                ("POST", "/v1/conversations/\(group)/messages/delete", #"{"seqs":"1"}"#, .invalidField),
                ("POST", "/v1/conversations/\(group)/messages/delete", #"{"seqs":[1],"all":true}"#, .unknownField),
                ("POST", "/v1/conversations/\(group)/messages/delete", #"{}"#, .missingField),
                ("PATCH", "/v1/conversations/\(group)/settings", #"{"clearUpToSeq":1.5}"#, .invalidField),
                ("PATCH", "/v1/conversations/\(group)/settings", #"{"clearUpToSeq":-1}"#, .invalidField),
                ("PATCH", "/v1/messages/\(message.id)", #"{"text":5}"#, .invalidField),
                ("PATCH", "/v1/messages/\(message.id)", #"{"text":"x","mentions":[2]}"#, .unknownField),
                ("PATCH", "/v1/messages/0", #"{"text":"x"}"#, .invalidField),
                (
                    "POST", "/v1/messages/forward", #"{"messageId":1.5,"conversationId":1,"clientMsgId":"a"}"#,
                    .invalidField
                ),
                ("POST", "/v1/messages/forward", #"{"conversationId":1,"clientMsgId":"a"}"#, .missingField),
                ("POST", "/v1/conversations/\(group)/delivered", #"{"seq":-1}"#, .invalidField),
                ("POST", "/v1/conversations/\(group)/delivered", #"{"seq":1,"conversationId":999}"#, .invalidField),
                ("GET", "/v1/conversations/\(group)/messages/x/readers", "", .invalidField),
                ("GET", "/v1/conversations/\(group)/messages/0/readers", "", .invalidField),
            ]
            for (method, path, body, code) in cases {
                let response = try await api.raw(
                    HTTPRequest.Method(method)!, path, body: body.isEmpty ? nil : body, token: alice.token)
                #expect(response.status == 400, "\(method) \(path) \(body): \(response.body)")
                #expect(try decodeJSON(ErrorBody.self, response.body).error.code == code, "\(path) \(body)")
            }
            #expect(try await api.fullHistory(of: group, as: alice).last == message)
            #expect(try await summary(api, group, for: alice).settings.clearedUpToSeq == nil)
        }
    }

    @Test func aRecallLeavesNoEditedTextInEventsAndSparesThoseWhoDeletedOrClearedTheMessage() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let dan = try await api.signUp("dan")
            let group = try await api.createGroup("team", by: alice, with: [bob, cyd, dan])
            var cursors: [UserID: String] = [:]
            for user in [bob, cyd, dan] {
                let start: SyncResponse = try await api.call(.get, "/v1/sync", token: user.token)
                cursors[user.id] = start.cursor
            }
            let message = try await api.sendText("draft", to: group, as: alice).message
            let reply = try await send(
                api, .reply, ["text": "hm", "replyTo": .number(.integer(message.id.rawValue))], to: group, as: dan)
            let _: Message = try await api.call(
                .patch, "/v1/messages/\(message.id)", EditMessageRequest(text: "the real secret"), token: alice.token)
            let _: MessagesDeleted = try await api.call(
                .post, "/v1/conversations/\(group)/messages/delete", DeleteMessagesRequest(seqs: [message.seq]),
                token: bob.token)
            let _: ConversationSummary = try await api.call(
                .patch, "/v1/conversations/\(group)/settings", UpdateSettingsRequest(clearUpToSeq: message.seq),
                token: cyd.token)
            _ = try await recall(api, reply, as: dan)
            let recalled = try await recall(api, message, as: alice)

            for user in [bob, cyd, dan] {
                let synced: SyncResponse = try await api.call(
                    .get, "/v1/sync?cursor=\(cursors[user.id]!)", token: user.token)
                let text = try JSONText.encode(synced.events)
                #expect(!text.contains("the real secret"), "\(user.username): the edit's text is gone from the log")
                let updates = synced.events.compactMap { event -> Message? in
                    guard case .messageUpdated(let update) = event.body, update.message.id == message.id else {
                        return nil
                    }
                    return update.message
                }
                switch user.username {
                case "dan":
                    #expect(updates == [recalled, recalled], "the edit's event now carries the recalled form too")
                case "bob":
                    #expect(updates == [recalled], "bob heard the edit, not the recall of what he had deleted")
                default:
                    #expect(updates == [recalled], "cyd cleared past it after the edit: the recall is not hers")
                }
            }
            let replyNow = try await api.fullHistory(of: group, as: alice).first { $0.id == reply.id }
            #expect(replyNow?.kind == .recalled)
            #expect(replyNow?.quote == nil, "a recalled reply gets no quote back when its target changes")
        }
    }
}
