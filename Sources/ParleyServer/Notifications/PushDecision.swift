import ParleyCore
import ParleyStore

/// What one committed thing pushes, if anything, to one recipient: the rules of mute,
/// preferences, quiet hours and previews, written once.
enum PushDecision {
    /// Something a push may be about.
    enum Subject: Sendable {
        case message(Message)
        case friendRequest(from: UserID, to: UserID)
        case invitation(group: ConversationID, by: UserID, users: [UserID])
    }

    /// The notification for `recipient`, or nil when none is due at `now`: a message of the
    /// server's (a notice, a recall) never pushes; a mention pushes as one if mentions are on,
    /// else as the direct or group message it is; a muted conversation pushes only mentions;
    /// the kind must be switched on and the time outside quiet hours.
    static func notification(
        about subject: Subject, for recipient: PushRecipient, in audience: PushAudience, at now: Int64
    ) -> PushNotification? {
        let settings = recipient.settings
        var notification: PushNotification
        switch subject {
        case .message(let message):
            guard !MessageKind.serverOnly.contains(message.kind) else { return nil }
            let mentions = message.typedContent.mentions
            let plain: NotificationKind = audience.groupName == nil ? .direct : .group
            let kind: NotificationKind
            if (mentions.all || mentions.userIds.contains(recipient.userId)) && settings.allows(.mention) {
                kind = .mention
            } else if !recipient.muted {
                kind = plain
            } else {
                return nil
            }
            let title = audience.groupName.map { "\(audience.actorName) in \($0)" } ?? audience.actorName
            notification = PushNotification(
                kind: kind, title: settings.preview ? title : "Parley",
                body: settings.preview ? summary(of: message) : "New message", badge: recipient.badge,
                conversationId: message.conversationId, seq: message.seq)
        case .friendRequest:
            notification = PushNotification(
                kind: .friendRequest, title: "Friend request",
                body: settings.preview ? "\(audience.actorName) wants to be your friend." : "New friend request",
                badge: recipient.badge)
        case .invitation(let group, _, _):
            notification = PushNotification(
                kind: .groupInvitation, title: settings.preview ? (audience.groupName ?? "Group") : "Parley",
                body: settings.preview ? "\(audience.actorName) added you to the group." : "You were added to a group",
                badge: recipient.badge, conversationId: group)
        }
        guard settings.allows(notification.kind), !settings.isQuiet(at: now) else { return nil }
        return notification
    }

    /// A message's text for a notification: its words, or its kind in brackets.
    static func summary(of message: Message) -> String {
        let text = message.typedContent.text ?? "[\(message.kind.rawValue.capitalized)]"
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }
}
