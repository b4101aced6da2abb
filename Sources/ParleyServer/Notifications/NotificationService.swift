import ParleyCore
import ParleyStore

/// Notification preferences and the push token of each device (its session).
struct NotificationService: Sendable {
    let store: any ParleyStore
    let clock: WallClock
    /// Told of each registration, so that pushes to this user start at once.
    let pushes: PushDispatcher

    func settings(of identity: Identity) async throws -> NotificationSettings {
        try await store.notificationSettings(of: identity.userId)
    }

    func update(_ update: UpdateNotificationSettingsRequest, of identity: Identity) async throws
        -> NotificationSettings
    {
        guard update != UpdateNotificationSettingsRequest() else {
            throw ParleyError(
                .missingField,
                "Give at least one of 'timeZone', 'quietHours', 'direct', 'group', 'mentions', 'friendRequests', "
                    + "'groupInvitations' and 'preview'.")
        }
        try NotificationRules.check(update)
        return try await store.updateNotificationSettings(of: identity.userId, update, at: clock.now())
    }

    func register(_ request: RegisterPushTokenRequest, by identity: Identity) async throws -> PushToken {
        try NotificationRules.check(request)
        var request = request
        request.token = request.token.lowercased()
        let token = try await store.registerPushToken(
            request, for: identity.sessionId, of: identity.userId, at: clock.now())
        pushes.noteTokenHolder(identity.userId)
        return token
    }

    func removeToken(of identity: Identity) async throws {
        try await store.removePushToken(of: identity.sessionId)
    }
}
