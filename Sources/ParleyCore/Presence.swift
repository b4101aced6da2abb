/// Whether a user is online, as another user may see it: `online` while any of their
/// devices is connected (to any node), `offline` with the time they were last seen, or
/// `hidden` when their privacy setting or a block keeps it from the viewer.
public struct Presence: Codable, Hashable, Sendable {
    public var userId: UserID
    public var status: PresenceStatus
    /// When their last device disconnected (ms since 1970); only with `offline`, and absent
    /// for someone never seen since presence was kept.
    public var lastSeenAt: Int64?

    public init(userId: UserID, status: PresenceStatus, lastSeenAt: Int64? = nil) {
        self.userId = userId
        self.status = status
        self.lastSeenAt = lastSeenAt
    }
}

/// `online`, `offline` or `hidden`. Open: a client treats a value it does not know as `hidden`.
public struct PresenceStatus: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let online: PresenceStatus = "online"
    public static let offline: PresenceStatus = "offline"
    public static let hidden: PresenceStatus = "hidden"
}

/// `GET /v1/presence`: the presence of the users asked about, in the order asked (or of
/// every friend, by id, when no ids were given).
public struct PresenceList: Codable, Hashable, Sendable {
    public var users: [Presence]
    public init(users: [Presence]) { self.users = users }
}

/// Who sees whether a user is online and when they were last seen: `everyone` (the
/// default, as in a team), only their `contacts` (friends), or `nobody`. Either way only
/// friends are told of changes as they happen; others ask. Open: a client treats a value it
/// does not know as `nobody`; a server accepts only ``known`` values.
public struct PresenceVisibility: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let everyone: PresenceVisibility = "everyone"
    public static let contacts: PresenceVisibility = "contacts"
    public static let nobody: PresenceVisibility = "nobody"
    public static let known: [PresenceVisibility] = [.everyone, .contacts, .nobody]
}

/// The rules of presence, shared by server and clients.
public enum PresenceRules {
    /// The most users one `GET /v1/presence` asks about.
    public static let maxUsersPerQuery = 200

    /// Whether `viewer` may see the presence of a user whose setting is `visibility`: always
    /// themselves; never across a block (either way); friends unless it is `nobody`; anyone
    /// else only with `everyone`.
    public static func isVisible(
        _ visibility: PresenceVisibility, toSelf: Bool, isFriend: Bool, blockedEitherWay: Bool
    ) -> Bool {
        if toSelf { return true }
        if blockedEitherWay { return false }
        switch visibility {
        case .everyone: return true
        case .contacts: return isFriend
        default: return false
        }
    }
}
