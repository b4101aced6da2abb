import Foundation
import ParleyCore
import Testing

@testable import ParleyServer

/// Running a group: each change is a system message in the conversation's seq and an event
/// for each affected user; removal cuts a member off at once; mutes say until when; links
/// and join requests admit people; dissolving leaves history readable and nothing writable.
@Suite struct GroupAdminTests {
    @Test func everyChangeIsASystemMessageInOrderAndTheProfileKeepsWhoEditedTheAnnouncement() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let dan = try await api.signUp("dan")
            let group = try await api.createGroup("Team", by: alice, with: [bob, cyd])
            let path = "/v1/conversations/\(group)"
            let until = Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000

            let _: MembersAdded = try await api.call(
                .post, "\(path)/members", AddMembersRequest(userIds: [dan.id]), token: bob.token)
            let _: ConversationDetail = try await api.call(
                .patch, "\(path)/members/\(bob.id)", UpdateMemberRequest(role: .admin), token: alice.token)
            let _: ConversationDetail = try await api.call(
                .patch, "\(path)/members/\(cyd.id)", UpdateMemberRequest(mutedUntil: until), token: bob.token)
            let _: ConversationDetail = try await api.call(
                .patch, "\(path)/members/\(cyd.id)", UpdateMemberRequest(mutedUntil: 0), token: bob.token)
            let edited: ConversationDetail = try await api.call(
                .patch, path,
                UpdateGroupRequest(name: "Launch", announcement: "Ship on Friday\nNo deploys after 4pm", muteAll: true),
                token: bob.token)
            let _: EmptyBody = try await api.call(.delete, "\(path)/members/\(dan.id)", token: bob.token)
            let _: EmptyBody = try await api.call(.delete, "\(path)/members/\(cyd.id)", token: cyd.token)
            let _: ConversationDetail = try await api.call(
                .post, "\(path)/transfer", TransferGroupRequest(userId: bob.id), token: alice.token)
            let dissolved: ConversationDetail = try await api.call(.post, "\(path)/dissolve", token: bob.token)

            let announcement = try #require(edited.conversation.group?.announcement)
            #expect(announcement.text == "Ship on Friday\nNo deploys after 4pm")
            #expect(announcement.updatedBy == bob.id)
            #expect(edited.conversation.group?.muteAll == true)
            #expect(dissolved.conversation.group?.ownerId == bob.id)
            #expect(dissolved.conversation.group?.dissolvedAt != nil)
            #expect(dissolved.members.map(\.userId) == [alice.id, bob.id])
            #expect(dissolved.members.first { $0.userId == alice.id }?.role == .admin, "the old owner becomes an admin")

            let notices = try await api.fullHistory(of: group, as: alice).map(\.typedContent)
            #expect(
                notices
                    == [
                        .system(SystemNotice(.memberJoined, by: bob.id, about: [dan.id])),
                        .system(SystemNotice(.adminAdded, by: alice.id, about: [bob.id])),
                        .system(SystemNotice(.memberMuted, by: bob.id, about: [cyd.id], until: until)),
                        .system(SystemNotice(.memberUnmuted, by: bob.id, about: [cyd.id])),
                        .system(SystemNotice(.groupRenamed, by: bob.id, text: "Launch")),
                        .system(
                            SystemNotice(.announcementUpdated, by: bob.id, text: "Ship on Friday\nNo deploys after 4pm")
                        ),
                        .system(SystemNotice(.muteAllOn, by: bob.id)),
                        .system(SystemNotice(.memberRemoved, by: bob.id, about: [dan.id])),
                        .system(SystemNotice(.memberLeft, by: cyd.id)),
                        .system(SystemNotice(.ownerTransferred, by: alice.id, about: [bob.id])),
                        .system(SystemNotice(.groupDissolved, by: bob.id)),
                    ].map { $0 as MessageContent })
        }
    }

    /// A group larger than the hub's crowd gets its joins unhurried (see
    /// `OutboundQueueTests`): a member's socket still gets each, in seq order with the
    /// messages between them.
    @Test func aLargeGroupsMemberHearsEveryJoinInOrderWithTheMessagesBetween() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            var others: [TestUser] = []
            for index in 0..<ConnectionHub.crowd { others.append(try await api.signUp("member\(index)")) }
            let (eve, fay) = (try await api.signUp("eve"), try await api.signUp("fay"))
            let group = try await api.createGroup("Crowd", by: alice, with: [bob] + others)
            let socket = try await LiveSocket.connect(api.webSocketURL, token: bob.token)

            let _: MembersAdded = try await api.call(
                .post, "/v1/conversations/\(group)/members", AddMembersRequest(userIds: [eve.id]), token: alice.token)
            _ = try await api.sendText("between", to: group, as: alice)
            let _: MembersAdded = try await api.call(
                .post, "/v1/conversations/\(group)/members", AddMembersRequest(userIds: [fay.id]), token: alice.token)
            _ = try await socket.waitFor { $0.type == "message" && (try? $0.payload(Message.self).seq) == 3 }
            let messages = try socket.received.filter { $0.type == "message" }.map { try $0.payload(Message.self) }
            #expect(messages.map(\.seq) == [1, 2, 3])
            #expect(
                messages.map(\.typedContent) == [
                    .system(SystemNotice(.memberJoined, by: alice.id, about: [eve.id])),
                    .text(text: "between", mentions: .none),
                    .system(SystemNotice(.memberJoined, by: alice.id, about: [fay.id])),
                ])
            await socket.close()
        }
    }

    @Test func aRemovedMemberStopsReceivingAtOnceOnEveryDeviceAndHearsWhyOnce() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bobPhone = try await api.signUp("bob", device: "phone")
            let bobLaptop = try await api.logIn("bob", device: "laptop")
            let cyd = try await api.signUp("cyd")
            let group = try await api.createGroup("Team", by: alice, with: [bobPhone, cyd])
            _ = try await api.sendText("before", to: group, as: alice)
            let snapshot: SyncResponse = try await api.call(.get, "/v1/sync", token: bobPhone.token)
            let phone = try await LiveSocket.connect(api.webSocketURL, token: bobPhone.token)
            let laptop = try await LiveSocket.connect(api.webSocketURL, token: bobLaptop.token)
            let cydSocket = try await LiveSocket.connect(api.webSocketURL, token: cyd.token)

            let _: EmptyBody = try await api.call(
                .delete, "/v1/conversations/\(group)/members/\(bobPhone.id)", token: alice.token)
            for socket in [phone, laptop] {
                let removed = try await socket.waitFor { $0.text.contains("conversation.removed") }
                #expect(
                    try removed.payload(UserEvent.self).body
                        == ConversationRemoved(conversationId: group, reason: .removed, removedBy: alice.id, lastSeq: 2)
                        .body)
                let notice = try await socket.waitFor { $0.type == "message" && $0.text.contains("member.removed") }
                #expect(
                    try notice.payload(Message.self).typedContent
                        == .system(SystemNotice(.memberRemoved, by: alice.id, about: [bobPhone.id])),
                    "the removed member sees the notice that removed them")
            }
            let othersHear = try await cydSocket.waitFor { $0.text.contains("members.removed") }
            #expect(
                try othersHear.payload(UserEvent.self).body
                    == MembersRemoved(
                        conversationId: group, userIds: [bobPhone.id], reason: .removed, removedBy: alice.id,
                        lastSeq: 2
                    )
                    .body)

            _ = try await api.sendText("after", to: group, as: alice)
            _ = try await cydSocket.waitFor { $0.type == "message" && $0.text.contains("after") }
            try await Task.sleep(for: .milliseconds(200))
            for socket in [phone, laptop] {
                #expect(!socket.received.contains { $0.text.contains("after") }, "nothing after the removal")
            }
            let refused = try await capture { _ = try await api.sendText("let me back", to: group, as: bobPhone) }
            #expect(refused?.error.code == .notAMember)
            // What was theirs stays readable, up to the notice of the removal and no further.
            let kept = try await api.fullHistory(of: group, as: bobLaptop)
            #expect(kept.map(\.seq) == [1, 2])
            #expect(
                kept.last?.typedContent == .system(SystemNotice(.memberRemoved, by: alice.id, about: [bobPhone.id])))
            let newest: HistoryPage = try await api.call(
                .get, "/v1/conversations/\(group)/messages", token: bobLaptop.token)
            #expect(newest.messages.map(\.seq) == [1, 2], "the newest page ends at the removal too")

            let changes: SyncResponse = try await api.call(
                .get, "/v1/sync?cursor=\(snapshot.cursor)", token: bobPhone.token)
            #expect(changes.events.map(\.type) == [.conversationRemoved], "once, through sync")
            #expect(!changes.conversations.contains { $0.id == group })
            let list: SyncResponse = try await api.call(.get, "/v1/sync", token: bobLaptop.token)
            #expect(!list.conversations.contains { $0.id == group }, "no longer listed")
            for socket in [phone, laptop, cydSocket] { await socket.close() }
        }
    }

    @Test func aMutedMemberIsToldUntilWhenMuteAllSparesAdminsAndAMuteEnds() async throws {
        let clock = TestClock(Int64(Date().timeIntervalSince1970 * 1000))
        try await withServer(clock: clock.wallClock) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let group = try await api.createGroup("Team", by: alice, with: [bob, cyd])
            let path = "/v1/conversations/\(group)"
            let until = clock.time.withLock { $0 } + 5_000
            let _: ConversationDetail = try await api.call(
                .patch, "\(path)/members/\(bob.id)", UpdateMemberRequest(mutedUntil: until), token: alice.token)

            let muted = try await capture { _ = try await api.sendText("hi", to: group, as: bob) }
            #expect(muted?.status == 403)
            #expect(muted?.error.code == .muted)
            #expect(muted?.error.until == until)
            #expect(muted?.error.message.hasPrefix("You are muted in this group until 20") == true)
            let socket = try await LiveSocket.connect(api.webSocketURL, token: bob.token)
            let overSocket = try await socket.request(
                .send, SendMessageRequest.text("hi", to: group, clientMsgId: "ws-muted"))
            #expect(try overSocket.payload(ParleyError.self).until == until)

            clock.advance(5_001)
            _ = try await api.sendText("free again", to: group, as: bob)

            let _: ConversationDetail = try await api.call(
                .patch, "\(path)/members/\(cyd.id)", UpdateMemberRequest(role: .admin), token: alice.token)
            let _: ConversationDetail = try await api.call(
                .patch, path, UpdateGroupRequest(muteAll: true), token: alice.token)
            let all = try await capture { _ = try await api.sendText("hi", to: group, as: bob) }
            #expect(all?.error.code == .muted)
            #expect(all?.error.message == "Only the owner and admins may send while the group is muted.")
            _ = try await api.sendText("admins may", to: group, as: cyd)
            _ = try await api.sendText("owners may", to: group, as: alice)

            let forever: ConversationDetail = try await api.call(
                .patch, "\(path)/members/\(bob.id)", UpdateMemberRequest(mutedUntil: Limits.mutedUntilLifted),
                token: alice.token)
            #expect(forever.members.first { $0.userId == bob.id }?.mutedUntil == Limits.mutedUntilLifted)
            let _: ConversationDetail = try await api.call(
                .patch, path, UpdateGroupRequest(muteAll: false), token: alice.token)
            let lifted = try await capture { _ = try await api.sendText("hi", to: group, as: bob) }
            #expect(lifted?.error.message == "You are muted in this group until an admin lifts it.")
            let typing = try await socket.request(.typing, TypingRequest(conversationId: group, typing: true))
            #expect(try typing.payload(ParleyError.self).code == .muted, "a muted member does not type either")

            // The owner may mute an admin, and the mute holds for them too.
            let _: ConversationDetail = try await api.call(
                .patch, "\(path)/members/\(cyd.id)", UpdateMemberRequest(mutedUntil: Limits.mutedUntilLifted),
                token: alice.token)
            let mutedAdmin = try await capture { _ = try await api.sendText("hi", to: group, as: cyd) }
            #expect(mutedAdmin?.error.code == .muted)
            await socket.close()
        }
    }

    @Test func inviteLinksAdmitUntilUsedUpRevokedOrExpired() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let strangers = try await [api.signUp("stranger1"), api.signUp("stranger2"), api.signUp("stranger3")]
            let group = try await api.createGroup("Open", by: alice, with: [bob])
            let links = "/v1/conversations/\(group)/links"

            let once: InviteLink = try await api.call(
                .post, links, CreateInviteLinkRequest(maxUses: 1), token: bob.token)
            #expect(once.code.count == 22 && once.maxUses == 1 && once.uses == 0)
            let preview: InvitePreview = try await api.call(.get, "/v1/invites/\(once.code)", token: strangers[0].token)
            #expect(preview == InvitePreview(conversationId: group, name: "Open", memberCount: 2, joinPolicy: .open))
            let joined: InviteOutcome = try await api.call(
                .post, "/v1/invites/\(once.code)", UseInviteRequest(), token: strangers[0].token)
            #expect(joined.conversation?.members.map(\.userId).contains(strangers[0].id) == true)
            #expect(joined.request == nil)
            let again: InviteOutcome = try await api.call(
                .post, "/v1/invites/\(once.code)", UseInviteRequest(), token: strangers[0].token)
            #expect(again.conversation != nil, "a member using a spent link is simply in")
            let usedUp = try await capture {
                let _: InviteOutcome = try await api.call(
                    .post, "/v1/invites/\(once.code)", UseInviteRequest(), token: strangers[1].token)
            }
            #expect(usedUp?.status == 410)
            #expect(usedUp?.error.message == "This invite link has been used up.")

            let revoked: InviteLink = try await api.call(.post, links, CreateInviteLinkRequest(), token: alice.token)
            let _: EmptyBody = try await api.call(.delete, "\(links)/\(revoked.code)", token: alice.token)
            let afterRevoke = try await capture {
                let _: InvitePreview = try await api.call(
                    .get, "/v1/invites/\(revoked.code)", token: strangers[1].token)
            }
            #expect(afterRevoke?.error.code == .inviteExpired)
            #expect(afterRevoke?.error.message == "This invite link was revoked.")

            let brief: InviteLink = try await api.call(
                .post, links, CreateInviteLinkRequest(expiresInSeconds: 1), token: alice.token)
            try await Task.sleep(for: .milliseconds(1_100))
            let expired = try await capture {
                let _: InviteOutcome = try await api.call(
                    .post, "/v1/invites/\(brief.code)", UseInviteRequest(), token: strangers[2].token)
            }
            #expect(expired?.error.message == "This invite link expired.")
            for code in ["nope", String(repeating: "A", count: 22)] {
                let unknown = try await capture {
                    let _: InvitePreview = try await api.call(.get, "/v1/invites/\(code)", token: strangers[2].token)
                }
                #expect(unknown?.status == 404)
                #expect(unknown?.error.code == .inviteNotFound)
            }

            let bobSees: InviteLinkList = try await api.call(.get, links, token: bob.token)
            #expect(bobSees.links.map(\.code) == [once.code], "a member sees the links they made")
            let aliceSees: InviteLinkList = try await api.call(.get, links, token: alice.token)
            #expect(Set(aliceSees.links.map(\.code)) == [once.code, revoked.code, brief.code])
            #expect(aliceSees.links.first { $0.code == once.code }?.uses == 1)
            let detail: ConversationDetail = try await api.call(
                .get, "/v1/conversations/\(group)", token: alice.token)
            #expect(detail.conversation.memberCount == 3, "only one stranger got in")

            // A link stops working when its maker leaves, and members' links when the group
            // becomes invite-only.
            let bobsLink: InviteLink = try await api.call(.post, links, CreateInviteLinkRequest(), token: bob.token)
            let strangersLink: InviteLink = try await api.call(
                .post, links, CreateInviteLinkRequest(), token: strangers[0].token)
            let _: EmptyBody = try await api.call(
                .delete, "/v1/conversations/\(group)/members/\(bob.id)", token: bob.token)
            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)", UpdateGroupRequest(joinPolicy: .inviteOnly), token: alice.token)
            for code in [bobsLink.code, strangersLink.code] {
                let dead = try await capture {
                    let _: InvitePreview = try await api.call(.get, "/v1/invites/\(code)", token: strangers[2].token)
                }
                #expect(dead?.error.message == "This invite link was revoked.")
            }

            // An admin made plain member loses their links of an invite-only group.
            let path = "/v1/conversations/\(group)/members/\(strangers[0].id)"
            let _: ConversationDetail = try await api.call(
                .patch, path, UpdateMemberRequest(role: .admin), token: alice.token)
            let adminsLink: InviteLink = try await api.call(
                .post, links, CreateInviteLinkRequest(), token: strangers[0].token)
            let _: ConversationDetail = try await api.call(
                .patch, path, UpdateMemberRequest(role: .member), token: alice.token)
            let demoted = try await capture {
                let _: InviteOutcome = try await api.call(
                    .post, "/v1/invites/\(adminsLink.code)", UseInviteRequest(), token: strangers[2].token)
            }
            #expect(demoted?.error.message == "This invite link was revoked.")
        }
    }

    @Test func aNoticeDoesNotMarkTheAdminsUnreadMessagesRead() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let group = try await api.createGroup("Team", by: alice, with: [bob])
            _ = try await api.sendText("unread by alice", to: group, as: bob)
            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)", UpdateGroupRequest(description: "rules"), token: alice.token)
            let detail: ConversationDetail = try await api.call(
                .get, "/v1/conversations/\(group)", token: alice.token)
            #expect(detail.conversation.maxSeq == 2)
            #expect(detail.conversation.readSeq == 0, "alice has not read bob's message")
            #expect(detail.conversation.unreadCount == 2)
        }
    }

    @Test func anApprovalGroupFilesOneRequestPerPersonThatAdminsApproveOrReject() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let eve = try await api.signUp("eve")
            let fay = try await api.signUp("fay")
            let group = try await api.createGroup("Club", by: alice, with: [bob])
            let path = "/v1/conversations/\(group)"
            let _: ConversationDetail = try await api.call(
                .patch, path, UpdateGroupRequest(joinPolicy: .approval), token: alice.token)
            let direct = try await capture {
                let _: MembersAdded = try await api.call(
                    .post, "\(path)/members", AddMembersRequest(userIds: [eve.id]), token: bob.token)
            }
            #expect(direct?.error.code == .forbidden, "members share links in an approval group")
            let link: InviteLink = try await api.call(
                .post, "\(path)/links", CreateInviteLinkRequest(), token: bob.token)
            let aliceSocket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let faysSnapshot: SyncResponse = try await api.call(.get, "/v1/sync", token: fay.token)

            let first: InviteOutcome = try await api.call(
                .post, "/v1/invites/\(link.code)", UseInviteRequest(message: "hi, I'm Eve"), token: eve.token)
            let merged: InviteOutcome = try await api.call(
                .post, "/v1/invites/\(link.code)", UseInviteRequest(message: "from the meetup"), token: eve.token)
            let fays: InviteOutcome = try await api.call(
                .post, "/v1/invites/\(link.code)", UseInviteRequest(), token: fay.token)
            #expect(fays.request?.message == "", "a request without a note")
            #expect(first.request?.state == .pending && first.conversation == nil)
            #expect(merged.request?.message == "from the meetup")
            #expect(merged.request?.createdAt == first.request?.createdAt, "merged, not a second request")
            let heard = try await aliceSocket.waitFor { $0.text.contains("join_request.updated") }
            #expect(try heard.payload(UserEvent.self).body.conversationId == group)
            let pending: JoinRequestList = try await api.call(.get, "\(path)/join-requests", token: alice.token)
            #expect(pending.requests.map(\.userId) == [eve.id, fay.id])
            let links: InviteLinkList = try await api.call(.get, "\(path)/links", token: alice.token)
            #expect(links.links.first?.uses == 2, "a new request counts a use, a merge does not")

            let approved: JoinRequest = try await api.call(
                .post, "\(path)/join-requests/\(eve.id)", ResolveJoinRequest(approve: true), token: alice.token)
            #expect(approved.state == .approved && approved.resolvedBy == alice.id)
            let rejected: JoinRequest = try await api.call(
                .post, "\(path)/join-requests/\(fay.id)", ResolveJoinRequest(approve: false), token: alice.token)
            #expect(rejected.state == .rejected)
            let twice = try await capture {
                let _: JoinRequest = try await api.call(
                    .post, "\(path)/join-requests/\(fay.id)", ResolveJoinRequest(approve: true), token: alice.token)
            }
            #expect(twice?.error.code == .joinRequestNotFound)
            let byMember = try await capture {
                let _: JoinRequestList = try await api.call(.get, "\(path)/join-requests", token: bob.token)
            }
            #expect(byMember?.error.code == .forbidden)

            let detail: ConversationDetail = try await api.call(.get, path, token: eve.token)
            #expect(detail.members.map(\.userId) == [alice.id, bob.id, eve.id])
            let faysSync: SyncResponse = try await api.call(
                .get, "/v1/sync?cursor=\(faysSnapshot.cursor)", token: fay.token)
            let states: [JoinRequestState] = faysSync.events.compactMap {
                if case .joinRequestUpdated(let update) = $0.body { return update.request.state }
                return nil
            }
            #expect(states == [.pending, .rejected], "the requester hears the request and its answer")
            let reopened: InviteOutcome = try await api.call(
                .post, "/v1/invites/\(link.code)", UseInviteRequest(message: "please?"), token: fay.token)
            #expect(reopened.request?.state == .pending, "asking again after a rejection reopens it")
            await aliceSocket.close()
        }
    }

    @Test func aDissolvedGroupKeepsItsHistoryAndTakesNothingNew() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let group = try await api.createGroup("Old", by: alice, with: [bob])
            _ = try await api.sendText("memories", to: group, as: bob)
            let link: InviteLink = try await api.call(
                .post, "/v1/conversations/\(group)/links", CreateInviteLinkRequest(), token: alice.token)
            let _: ConversationDetail = try await api.call(
                .post, "/v1/conversations/\(group)/dissolve", token: alice.token)
            let preview = try await capture {
                let _: InvitePreview = try await api.call(.get, "/v1/invites/\(link.code)", token: bob.token)
            }
            #expect(preview?.error.code == .groupDissolved)

            #expect(try await api.fullHistory(of: group, as: bob).count == 2)
            let attempts: [(String, () async throws -> Void)] = [
                ("send", { _ = try await api.sendText("anyone?", to: group, as: bob) }),
                (
                    "rename",
                    {
                        let _: ConversationDetail = try await api.call(
                            .patch, "/v1/conversations/\(group)", UpdateGroupRequest(name: "New"), token: alice.token)
                    }
                ),
                (
                    "invite link",
                    {
                        let _: InviteLink = try await api.call(
                            .post, "/v1/conversations/\(group)/links", CreateInviteLinkRequest(), token: alice.token)
                    }
                ),
            ]
            for (name, attempt) in attempts {
                let failure = try await capture(attempt)
                #expect(failure?.status == 409, "\(name)")
                #expect(failure?.error.code == .groupDissolved, "\(name)")
            }

            // Members may still leave it, to clear their lists; nothing is written to its seq.
            let _: EmptyBody = try await api.call(
                .delete, "/v1/conversations/\(group)/members/\(bob.id)", token: bob.token)
            let sync: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)
            #expect(!sync.conversations.contains { $0.id == group })
            let left: ConversationDetail = try await api.call(.get, "/v1/conversations/\(group)", token: alice.token)
            #expect(left.members.map(\.userId) == [alice.id])
            #expect(left.conversation.maxSeq == 2)
        }
    }

    @Test func aMemberWhoWasAwaySeesEachChangeOnceThroughSync() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            let group = try await api.createGroup("Team", by: alice, with: [bob, cyd])
            let snapshot: SyncResponse = try await api.call(.get, "/v1/sync", token: bob.token)

            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)/members/\(cyd.id)", UpdateMemberRequest(role: .admin),
                token: alice.token)
            let _: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)", UpdateGroupRequest(description: "We ship things."),
                token: cyd.token)

            let changes: SyncResponse = try await api.call(
                .get, "/v1/sync?cursor=\(snapshot.cursor)", token: bob.token)
            #expect(changes.events.map(\.type) == [.membersUpdated, .conversationUpdated])
            #expect(changes.conversations.first?.group?.description == "We ship things.")
            #expect(changes.conversations.first?.maxSeq == 2, "two notices in the seq")
            let quiet: SyncResponse = try await api.call(.get, "/v1/sync?cursor=\(changes.cursor)", token: bob.token)
            #expect(quiet.events.isEmpty && quiet.conversations.isEmpty)
        }
    }

    @Test func badAdministrationRequestsGetPreciseErrorsAndChangeNothing() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let eve = try await api.signUp("eve")
            let group = try await api.createGroup("Team", by: alice, with: [bob])
            let path = "/v1/conversations/\(group)"
            let cases: [(String, String, String, Int, ErrorCode, String)] = [
                ("PATCH", path, #"{}"#, 400, .missingField, "Give at least one of the group's fields to change."),
                (
                    "PATCH", path, #"{"description":"\#(String(repeating: "d", count: 513))"}"#, 400, .invalidField,
                    "'description' must be at most 512 characters long."
                ),
                (
                    "PATCH", path, #"{"avatar":"has space"}"#, 400, .invalidField,
                    "'avatar' must be a file id of at most 128 printable ASCII characters, or empty."
                ),
                ("PATCH", path, #"{"joinPolicy":"everyone"}"#, 400, .invalidField, "Field 'joinPolicy' is not valid."),
                (
                    "PATCH", "\(path)/members/\(bob.id)", #"{"mutedUntil":1000}"#, 400, .invalidField,
                    "'mutedUntil' must be 0 (lift the mute) or a time in the future, at most \(Limits.mutedUntilLifted)."
                ),
                (
                    "PATCH", "\(path)/members/\(bob.id)", #"{"role":"owner"}"#, 400, .invalidField,
                    "'role' must be 'admin' or 'member'; ownership moves with a transfer."
                ),
                (
                    "PATCH", "\(path)/members/\(alice.id)", #"{"nickname":"\#(String(repeating: "n", count: 33))"}"#,
                    400, .invalidField, "'nickname' must be 1 to 32 characters long."
                ),
                (
                    "PATCH", "\(path)/members/\(bob.id)", #"{"nickname":"boss"}"#, 403, .forbidden,
                    "Members set their own group nickname only."
                ),
                (
                    "PATCH", "\(path)/members/\(eve.id)", #"{"role":"admin"}"#, 404, .memberNotFound,
                    "User \(eve.id) is not a member of conversation \(group)."
                ),
                (
                    "POST", "\(path)/transfer", #"{"userId":\#(eve.id)}"#, 404, .memberNotFound,
                    "User \(eve.id) is not a member of conversation \(group)."
                ),
                (
                    "POST", "\(path)/links", #"{"maxUses":0}"#, 400, .invalidField, "'maxUses' must be 1 to 100000."
                ),
                (
                    "POST", "\(path)/links", #"{"expiresInSeconds":-5}"#, 400, .invalidField,
                    "'expiresInSeconds' must be 1 to \(Limits.maxInviteLinkLifetimeSeconds)."
                ),
                (
                    "DELETE", "\(path)/links/\(String(repeating: "B", count: 22))", "", 404, .inviteNotFound,
                    "No such invite link."
                ),
                (
                    "POST", "\(path)/join-requests/\(eve.id)", #"{"approve":true}"#, 404, .joinRequestNotFound,
                    "User \(eve.id) has no pending request to join."
                ),
                (
                    "POST", "/v1/messages",
                    #"{"conversationId":\#(group),"clientMsgId":"system-1","kind":"text","content":{"text":"x"}}"#,
                    400, .invalidField, "'clientMsgId' may not start with 'system-': the server's notices do."
                ),
            ]
            let before: ConversationDetail = try await api.call(.get, path, token: alice.token)
            for (method, target, body, status, code, message) in cases {
                let (got, text, _) = try await api.raw(
                    .init(method)!, target, body: body.isEmpty ? nil : body, token: alice.token)
                #expect(got == status, "\(method) \(target) \(body)")
                let error = try decodeJSON(ErrorBody.self, text).error
                #expect(error.code == code, "\(method) \(target) \(body)")
                #expect(error.message == message, "\(method) \(target) \(body)")
            }
            let after: ConversationDetail = try await api.call(.get, path, token: alice.token)
            #expect(after == before)
        }
    }
}
