import Logging
import ParleyCore

/// The default pusher: it writes each notification to the log instead of a push service,
/// so that a server with no push credentials shows what it would have pushed. The token
/// is shortened and the text left out: logs hold no secret and no message content.
struct LogPusher: Pusher {
    let logger: Logger

    func push(_ notification: PushNotification, to token: PushToken) async -> PushOutcome {
        logger.info(
            "Push",
            metadata: [
                "kind": "\(notification.kind)", "badge": "\(notification.badge)",
                "conversation": "\(notification.conversationId.map { "\($0.rawValue)" } ?? "-")",
                "platform": "\(token.platform)", "app": "\(token.appId)", "token": "\(token.token.prefix(8))…",
            ])
        return .delivered
    }
}
