import ParleyCore

/// One user a push may go to: their devices' tokens and what decides whether and how they
/// are notified.
public struct PushRecipient: Sendable, Hashable {
    public var userId: UserID
    public var tokens: [PushToken]
    public var settings: NotificationSettings
    /// Whether they muted the conversation the push is about.
    public var muted: Bool
    /// The unread messages of all their conversations that are not muted.
    public var badge: Int64

    public init(userId: UserID, tokens: [PushToken], settings: NotificationSettings, muted: Bool, badge: Int64) {
        self.userId = userId
        self.tokens = tokens
        self.settings = settings
        self.muted = muted
        self.badge = badge
    }

    /// The recipients of an audience query's rows, one row per token ordered by user: each
    /// user's rows become one recipient holding all their tokens.
    public static func merging(_ rows: [PushRecipient]) -> [PushRecipient] {
        var recipients: [PushRecipient] = []
        for row in rows {
            if recipients.last?.userId == row.userId {
                recipients[recipients.count - 1].tokens += row.tokens
            } else {
                recipients.append(row)
            }
        }
        return recipients
    }
}

/// Who a push about one event goes to, with the names it shows.
public struct PushAudience: Sendable, Hashable {
    /// The nickname of whoever caused it (sender, requester, inviter).
    public var actorName: String
    /// The group's name, for pushes about a group.
    public var groupName: String?
    public var recipients: [PushRecipient]

    public init(actorName: String, groupName: String?, recipients: [PushRecipient]) {
        self.actorName = actorName
        self.groupName = groupName
        self.recipients = recipients
    }
}

/// Notification preferences and the push tokens of devices.
public protocol NotificationStore: Sendable {
    /// The user's preferences (defaults until they change one).
    func notificationSettings(of userId: UserID) async throws -> NotificationSettings
    /// Applies an update (checked by `NotificationRules.check(_:)`), with
    /// `notifications.updated` to the user; answers the preferences as they now stand.
    func updateNotificationSettings(of userId: UserID, _ update: UpdateNotificationSettingsRequest, at now: Int64)
        async throws -> NotificationSettings
    /// Makes `token` the push token of session `sessionId` (replacing the one it had; a
    /// session that held the same token loses it).
    func registerPushToken(
        _ request: RegisterPushTokenRequest, for sessionId: SessionID, of userId: UserID, at now: Int64
    ) async throws -> PushToken
    /// Forgets the push token of session `sessionId` (nothing happens if it has none).
    func removePushToken(of sessionId: SessionID) async throws
    /// The users who registered a push token at or after `since` (ms; 0: all who hold one).
    func pushTokenHolders(registeredSince since: Int64) async throws -> [UserID]
    /// Forgets a token the push service says is no longer valid, whichever session holds it.
    func removePushToken(_ token: String, platform: PushPlatform) async throws
    /// Who among `users` (nil: the members of `conversationId`) other than `actor` gets a
    /// push about something in `conversationId` (if any): those with a token on a session
    /// that is neither revoked nor expired at `now`, no device connected on any node, and no
    /// block with `actor` either way.
    func pushAudience(
        of users: [UserID]?, in conversationId: ConversationID?, from actor: UserID, at now: Int64
    ) async throws -> PushAudience
}

extension NotificationSettings {
    /// Settings as a backend stores them: JSON, or NULL until the user changes one.
    public init(stored json: String?) throws {
        self = try json.map { try JSONText.decode(NotificationSettings.self, from: $0) } ?? .defaults
    }
}
