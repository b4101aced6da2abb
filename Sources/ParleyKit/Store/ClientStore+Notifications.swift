import GRDB
import ParleyCore

/// The user's notification preferences as this device last heard them.
extension ClientStore {
    static let notificationSettingsKey = "notifications.settings"

    /// The preferences this device holds; nil until fetched or heard of.
    public func notificationSettings() throws -> NotificationSettings? {
        try value(Self.notificationSettingsKey).map { try JSONText.decode(NotificationSettings.self, from: $0) }
    }

    /// Saves preferences the server answered with (they are current when answered).
    package func saveNotificationSettings(_ settings: NotificationSettings) throws {
        try setValue(try JSONText.encode(settings), for: Self.notificationSettingsKey)
    }

    /// `notifications.updated`: the preferences as they now stand, unless a newer event set them.
    static func applyNotificationSettings(_ db: Database, _ updated: NotificationsUpdated, seq: Int64) throws {
        guard try claim(db, .notifications, 0, seq: seq) else { return }
        try setValue(db, try JSONText.encode(updated.settings), for: notificationSettingsKey)
    }
}
