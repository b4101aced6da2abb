import ParleyCore

/// One notification for one device, as the push service shows it.
struct PushNotification: Sendable, Hashable {
    var kind: NotificationKind
    var title: String
    var body: String
    /// The app icon's number: the unread messages of the user's conversations that are not muted.
    var badge: Int64
    /// What a tap opens: the conversation (and the message's seq), if any.
    var conversationId: ConversationID?
    var seq: Int64?
}

/// What became of one push.
enum PushOutcome: Sendable, Hashable {
    case delivered
    /// The push service says the token is no longer valid: it is forgotten.
    case tokenGone
    /// It did not arrive, and trying again would not help now.
    case failed(String)
}

/// Hands notifications to a push service. A pusher never throws and must return in bounded
/// time: ``PushDispatcher`` calls it off the send path, but a stuck one would hold a slot.
protocol Pusher: Sendable {
    func push(_ notification: PushNotification, to token: PushToken) async -> PushOutcome
}
