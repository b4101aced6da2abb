import ParleyCore
import ParleyStore
import Testing

@testable import ParleyServer

/// What one committed thing pushes to one recipient: every rule of kind, mute, switches,
/// quiet hours and previews.
@Suite struct PushDecisionTests {
    let bob = UserID(2)

    func message(_ text: String, kind: MessageKind = .text, mentions: [UserID] = [], all: Bool = false) -> Message {
        var content: [String: JSONValue] = ["text": .string(text)]
        if !mentions.isEmpty { content["mentions"] = .array(mentions.map { .number(.integer($0.rawValue)) }) }
        if all { content["mentionAll"] = true }
        return Message(
            id: MessageID(9), conversationId: ConversationID(5), seq: 3, senderId: UserID(1), clientMsgId: "c",
            kind: kind, content: .object(content), sentAt: 0)
    }

    func decide(
        _ subject: PushDecision.Subject, settings: NotificationSettings = .defaults, muted: Bool = false,
        group: String? = "Team", at now: Int64 = 0
    ) -> PushNotification? {
        PushDecision.notification(
            about: subject,
            for: PushRecipient(userId: bob, tokens: [], settings: settings, muted: muted, badge: 4),
            in: PushAudience(actorName: "alice", groupName: group, recipients: []), at: now)
    }

    @Test func messagesPushByKindUnlessMutedOffOrQuiet() {
        let plain = decide(.message(message("hi")))
        #expect(
            plain
                == PushNotification(
                    kind: .group, title: "alice in Team", body: "hi", badge: 4, conversationId: ConversationID(5),
                    seq: 3))
        #expect(decide(.message(message("hi")), group: nil)?.kind == .direct)
        #expect(decide(.message(message("hi")), group: nil)?.title == "alice")
        #expect(decide(.message(message("hi")), muted: true) == nil)
        #expect(decide(.message(message("@bob", mentions: [bob])), muted: true)?.kind == .mention)
        #expect(decide(.message(message("@all", all: true)), muted: true)?.kind == .mention)
        #expect(decide(.message(message("@cyd", mentions: [UserID(3)])), muted: true) == nil)
        // Mentions off: a mention is the group message it is (and nothing when muted).
        let noMentions = NotificationSettings(mentions: false)
        #expect(decide(.message(message("@bob", mentions: [bob])), settings: noMentions)?.kind == .group)
        #expect(decide(.message(message("@bob", mentions: [bob])), settings: noMentions, muted: true) == nil)
        #expect(decide(.message(message("hi")), settings: NotificationSettings(group: false)) == nil)
        #expect(decide(.message(message("hi")), settings: NotificationSettings(direct: false), group: nil) == nil)
        #expect(decide(.message(message("hi", kind: .system))) == nil)
        #expect(decide(.message(message("x", kind: .recalled))) == nil)
        let quiet = NotificationSettings(quietHours: [QuietPeriod(start: "00:00", end: "01:00")])
        #expect(decide(.message(message("hi")), settings: quiet, at: 30 * 60_000) == nil)
        #expect(decide(.message(message("hi")), settings: quiet, at: 90 * 60_000) != nil)
        let hidden = decide(.message(message("secret")), settings: NotificationSettings(preview: false))
        #expect(hidden?.title == "Parley" && hidden?.body == "New message")
        let image = Message(
            id: MessageID(9), conversationId: ConversationID(5), seq: 3, senderId: UserID(1), clientMsgId: "c",
            kind: .image, content: ["fileId": "f"], sentAt: 0)
        #expect(decide(.message(image))?.body == "[Image]")
        let long = decide(.message(message(String(repeating: "a", count: 300))))
        #expect(long?.body.count == 200 && long?.body.hasSuffix("…") == true)
    }

    @Test func requestsAndInvitationsHaveTheirOwnSwitches() {
        let request = decide(.friendRequest(from: UserID(1), to: bob), group: nil)
        #expect(request?.kind == .friendRequest && request?.body == "alice wants to be your friend.")
        #expect(
            decide(.friendRequest(from: UserID(1), to: bob), settings: NotificationSettings(friendRequests: false))
                == nil)
        #expect(
            decide(.friendRequest(from: UserID(1), to: bob), settings: NotificationSettings(preview: false))?.body
                == "New friend request")
        let invitation = decide(.invitation(group: ConversationID(5), by: UserID(1), users: [bob]))
        #expect(invitation?.kind == .groupInvitation && invitation?.title == "Team")
        #expect(
            decide(
                .invitation(group: ConversationID(5), by: UserID(1), users: [bob]),
                settings: NotificationSettings(groupInvitations: false)) == nil)
    }
}
