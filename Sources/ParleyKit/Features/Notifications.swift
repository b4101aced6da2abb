import ParleyCore

/// The user's notification preferences and this device's push token
/// (`client.notifications`). The preferences are the same on all the user's devices: a
/// change made on one reaches the others as a `notifications.updated` event, live or
/// through sync.
public struct Notifications: Sendable {
    let store: ClientStore
    let session: Session

    /// The preferences as this device holds them; nil until fetched or heard of.
    public func stored() throws -> NotificationSettings? { try store.notificationSettings() }

    /// Fetches the preferences from the server and keeps them.
    @discardableResult
    public func fetch() async throws -> NotificationSettings {
        let settings: NotificationSettings = try await session.http(.getNotificationSettings)
        try store.saveNotificationSettings(settings)
        return settings
    }

    /// Fetches the preferences when this device holds none (first sign-in, or a snapshot
    /// sync dropped them); ``ParleyClient/catchUp()`` runs it.
    package func fetchIfUnknown() async throws {
        if try store.notificationSettings() == nil { try await fetch() }
    }

    /// Changes the preferences `change` names (`quietHours` replaces the whole list).
    @discardableResult
    public func update(_ change: UpdateNotificationSettingsRequest) async throws -> NotificationSettings {
        let settings: NotificationSettings = try await session.http(.updateNotificationSettings, body: change)
        try store.saveNotificationSettings(settings)
        return settings
    }

    /// Registers this device's push token: while no device of the user is connected, what
    /// the preferences allow is pushed to it. Call it whenever the platform gives a token.
    @discardableResult
    public func registerPushToken(_ request: RegisterPushTokenRequest) async throws -> PushToken {
        try await session.http(.registerPushToken, body: request)
    }

    /// Stops pushes to this device (logging out does too).
    public func removePushToken() async throws {
        let _: APIClient.Empty = try await session.http(.removePushToken)
    }
}
