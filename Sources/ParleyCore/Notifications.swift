import Foundation

/// A user's notification preferences, the same on all their devices: quiet hours in their
/// own time zone, a switch per kind of notification, and whether a notification shows what
/// was said. They decide what the server pushes to devices that are not connected.
public struct NotificationSettings: Codable, Hashable, Sendable {
    /// An IANA time zone name (`Europe/Berlin`); quiet hours are read in it.
    public var timeZone: String
    /// Do-not-disturb periods: no push while one lasts (the badge still counts).
    public var quietHours: [QuietPeriod]
    /// Messages in direct conversations.
    public var direct: Bool
    /// Messages in groups that do not mention the user.
    public var group: Bool
    /// Messages that mention the user (or everyone), in any conversation, muted ones
    /// included. Off, a mention pushes as the message it is (by `direct` or `group`, not in a
    /// muted conversation).
    public var mentions: Bool
    /// Friend requests to the user.
    public var friendRequests: Bool
    /// Being added to a group by someone else.
    public var groupInvitations: Bool
    /// Whether a notification shows the sender and the text, or only that something came.
    public var preview: Bool

    public init(
        timeZone: String = "UTC", quietHours: [QuietPeriod] = [], direct: Bool = true, group: Bool = true,
        mentions: Bool = true, friendRequests: Bool = true, groupInvitations: Bool = true, preview: Bool = true
    ) {
        self.timeZone = timeZone
        self.quietHours = quietHours
        self.direct = direct
        self.group = group
        self.mentions = mentions
        self.friendRequests = friendRequests
        self.groupInvitations = groupInvitations
        self.preview = preview
    }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case timeZone, quietHours, direct, group, mentions, friendRequests, groupInvitations, preview
    }

    /// Settings a stored account or an older server left out take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self.defaults
        func flag(_ key: CodingKeys, _ fallback: Bool) throws -> Bool {
            try container.decodeIfPresent(Bool.self, forKey: key) ?? fallback
        }
        self.init(
            timeZone: try container.decodeIfPresent(String.self, forKey: .timeZone) ?? defaults.timeZone,
            quietHours: try container.decodeIfPresent([QuietPeriod].self, forKey: .quietHours) ?? [],
            direct: try flag(.direct, defaults.direct), group: try flag(.group, defaults.group),
            mentions: try flag(.mentions, defaults.mentions),
            friendRequests: try flag(.friendRequests, defaults.friendRequests),
            groupInvitations: try flag(.groupInvitations, defaults.groupInvitations),
            preview: try flag(.preview, defaults.preview))
    }

    /// What a new account starts with: every kind on, previews on, no quiet hours, UTC.
    public static let defaults = NotificationSettings()

    /// These settings with `update` applied.
    public func updated(by update: UpdateNotificationSettingsRequest) -> NotificationSettings {
        NotificationSettings(
            timeZone: update.timeZone ?? timeZone, quietHours: update.quietHours ?? quietHours,
            direct: update.direct ?? direct, group: update.group ?? group, mentions: update.mentions ?? mentions,
            friendRequests: update.friendRequests ?? friendRequests,
            groupInvitations: update.groupInvitations ?? groupInvitations, preview: update.preview ?? preview)
    }

    /// Whether pushes of `kind` are switched on.
    public func allows(_ kind: NotificationKind) -> Bool {
        switch kind {
        case .direct: direct
        case .group: group
        case .mention: mentions
        case .friendRequest: friendRequests
        case .groupInvitation: groupInvitations
        default: false
        }
    }

    /// Whether `instant` (ms since 1970) falls in one of the quiet periods, read in
    /// ``timeZone`` (UTC if the name is unknown).
    public func isQuiet(at instant: Int64) -> Bool {
        guard !quietHours.isEmpty else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
        let date = Date(timeIntervalSince1970: Double(instant) / 1_000)
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        // Calendar's weekday is 1 = Sunday; ISO's (ours) is 1 = Monday.
        let weekday = ((parts.weekday ?? 1) + 5) % 7 + 1
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        return quietHours.contains { $0.contains(weekday: weekday, minute: minute) }
    }
}

/// One quiet period: from `start` to `end` (`"HH:MM"`, 24-hour, in the user's time zone),
/// on the `days` it starts (ISO weekdays, 1 = Monday … 7 = Sunday; absent: every day). A
/// period whose end is not after its start runs past midnight into the next day.
public struct QuietPeriod: Codable, Hashable, Sendable, StrictDecodable {
    public var start: String
    public var end: String
    public var days: [Int]?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case start, end, days
    }

    public init(start: String, end: String, days: [Int]? = nil) {
        self.start = start
        self.end = end
        self.days = days
    }

    /// Minutes after midnight of `"HH:MM"`, or nil when it is not such a time.
    public static func minutes(_ time: String) -> Int? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ $0.count == 2 && $0.allSatisfy({ $0.isASCII && $0.isWholeNumber }) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    /// Whether the period covers `minute` (after midnight) of ISO `weekday`.
    func contains(weekday: Int, minute: Int) -> Bool {
        guard let from = Self.minutes(start), let to = Self.minutes(end) else { return false }
        let startsOn = { (day: Int) in self.days?.contains(day) ?? true }
        if from < to { return startsOn(weekday) && minute >= from && minute < to }
        // Past midnight: the evening part belongs to today, the morning part to yesterday.
        let yesterday = weekday == 1 ? 7 : weekday - 1
        return (startsOn(weekday) && minute >= from) || (startsOn(yesterday) && minute < to)
    }
}

/// `PATCH /v1/me/notifications`: the preferences given change, the others stay;
/// `quietHours` replaces the whole list.
public struct UpdateNotificationSettingsRequest: Codable, Hashable, Sendable, StrictDecodable {
    public var timeZone: String?
    public var quietHours: [QuietPeriod]?
    public var direct: Bool?
    public var group: Bool?
    public var mentions: Bool?
    public var friendRequests: Bool?
    public var groupInvitations: Bool?
    public var preview: Bool?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case timeZone, quietHours, direct, group, mentions, friendRequests, groupInvitations, preview
    }

    /// Decodes each quiet period strictly too: a misspelt field in one is refused.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            timeZone: try container.decodeIfPresent(String.self, forKey: .timeZone),
            quietHours: try container.decodeIfPresent([Strict<QuietPeriod>].self, forKey: .quietHours)?.map(\.value),
            direct: try container.decodeIfPresent(Bool.self, forKey: .direct),
            group: try container.decodeIfPresent(Bool.self, forKey: .group),
            mentions: try container.decodeIfPresent(Bool.self, forKey: .mentions),
            friendRequests: try container.decodeIfPresent(Bool.self, forKey: .friendRequests),
            groupInvitations: try container.decodeIfPresent(Bool.self, forKey: .groupInvitations),
            preview: try container.decodeIfPresent(Bool.self, forKey: .preview))
    }

    public init(
        timeZone: String? = nil, quietHours: [QuietPeriod]? = nil, direct: Bool? = nil, group: Bool? = nil,
        mentions: Bool? = nil, friendRequests: Bool? = nil, groupInvitations: Bool? = nil, preview: Bool? = nil
    ) {
        self.timeZone = timeZone
        self.quietHours = quietHours
        self.direct = direct
        self.group = group
        self.mentions = mentions
        self.friendRequests = friendRequests
        self.groupInvitations = groupInvitations
        self.preview = preview
    }
}

/// What a push is about. Open, for notifications a later server adds.
public struct NotificationKind: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let direct: NotificationKind = "direct"
    public static let group: NotificationKind = "group"
    public static let mention: NotificationKind = "mention"
    public static let friendRequest: NotificationKind = "friend_request"
    public static let groupInvitation: NotificationKind = "group_invitation"
}

/// The push service a device's token belongs to. Only `apns` (Apple) is known now.
public struct PushPlatform: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let apns: PushPlatform = "apns"
    public static let known: [PushPlatform] = [.apns]
}

/// `PUT /v1/me/push-token`: this device (its session) is reached through `token` while it is
/// not connected. A device has one token; registering again replaces it, and a token another
/// session held moves to this one.
public struct RegisterPushTokenRequest: Codable, Hashable, Sendable, StrictDecodable {
    public var platform: PushPlatform
    /// The device token as the platform gives it (APNs: hexadecimal).
    public var token: String
    /// The app the token is for (APNs: its bundle id, the `apns-topic`).
    public var appId: String
    /// Whether the token belongs to the platform's development environment (APNs sandbox).
    public var sandbox: Bool?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case platform, token, appId, sandbox
    }

    public init(platform: PushPlatform, token: String, appId: String, sandbox: Bool? = nil) {
        self.platform = platform
        self.token = token
        self.appId = appId
        self.sandbox = sandbox
    }
}

/// A device's registered push token, as the server holds it.
public struct PushToken: Codable, Hashable, Sendable {
    public var platform: PushPlatform
    public var token: String
    public var appId: String
    public var sandbox: Bool
    public var createdAt: Int64

    public init(platform: PushPlatform, token: String, appId: String, sandbox: Bool, createdAt: Int64) {
        self.platform = platform
        self.token = token
        self.appId = appId
        self.sandbox = sandbox
        self.createdAt = createdAt
    }

    /// The token a registration stores at `now` (not sandboxed unless it says so).
    public init(_ request: RegisterPushTokenRequest, at now: Int64) {
        self.init(
            platform: request.platform, token: request.token, appId: request.appId, sandbox: request.sandbox ?? false,
            createdAt: now)
    }
}

/// The rules of notification settings and push tokens, shared by server and clients.
public enum NotificationRules {
    /// The most quiet periods one user keeps.
    public static let maxQuietPeriods = 10
    /// The longest push token and app id, in bytes.
    public static let maxTokenBytes = 200
    public static let maxAppIdBytes = 155

    /// Checks an update: a known time zone, well-formed periods (`"HH:MM"`, days 1…7 without
    /// repeats) and at most ``maxQuietPeriods``; throws `invalid_field` naming the field.
    public static func check(_ update: UpdateNotificationSettingsRequest) throws {
        if let zone = update.timeZone, zone.isEmpty || zone.utf8.count > 64 || TimeZone(identifier: zone) == nil {
            throw ParleyError(.invalidField, "'timeZone' must be an IANA time zone name such as 'Europe/Berlin'.")
        }
        guard let periods = update.quietHours else { return }
        guard periods.count <= maxQuietPeriods else {
            throw ParleyError(.invalidField, "'quietHours' may hold at most \(maxQuietPeriods) periods.")
        }
        for period in periods {
            guard let from = QuietPeriod.minutes(period.start), let to = QuietPeriod.minutes(period.end) else {
                throw ParleyError(.invalidField, "'quietHours' times must be \"HH:MM\" (00:00 to 23:59).")
            }
            guard from != to else {
                throw ParleyError(.invalidField, "A quiet period's 'start' and 'end' must differ.")
            }
            if let days = period.days {
                guard !days.isEmpty, days.allSatisfy((1...7).contains), Set(days).count == days.count else {
                    throw ParleyError(
                        .invalidField, "'days' must list ISO weekdays 1 (Monday) to 7 (Sunday), each at most once.")
                }
            }
        }
    }

    /// Checks a token registration: a known platform, a token of 1 to ``maxTokenBytes``
    /// hexadecimal digits (APNs; the server keeps it in lower case), an app id of 1 to
    /// ``maxAppIdBytes``.
    public static func check(_ request: RegisterPushTokenRequest) throws {
        guard PushPlatform.known.contains(request.platform) else {
            throw ParleyError(.invalidField, "'platform' must be 'apns'.")
        }
        guard (1...maxTokenBytes).contains(request.token.utf8.count),
            request.token.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit)
        else {
            throw ParleyError(.invalidField, "'token' must be 1 to \(maxTokenBytes) hexadecimal digits.")
        }
        guard (1...maxAppIdBytes).contains(request.appId.utf8.count),
            request.appId.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-")
            })
        else {
            throw ParleyError(
                .invalidField, "'appId' must be 1 to \(maxAppIdBytes) letters, digits, '.' and '-' (a bundle id).")
        }
    }
}
