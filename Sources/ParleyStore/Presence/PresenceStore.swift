import ParleyCore

/// A user's presence turning, across all nodes: `online` when their first device connected
/// anywhere, offline (at `at`, their last-seen time) when their last one left.
public struct PresenceChange: Sendable, Hashable {
    public var userId: UserID
    public var online: Bool
    public var at: Int64

    public init(userId: UserID, online: Bool, at: Int64) {
        self.userId = userId
        self.online = online
        self.at = at
    }
}

extension PresenceChange {
    /// The turns of one presence write, from what the backend read and deleted: `arrived`
    /// users of whom no device was recorded anywhere before (`onlineBefore` holds those who
    /// had one) come online at `now`; `departed` users (a device record deleted, with when it
    /// was last known to be there) of whom none is left (`stillOnline`) go offline then, the
    /// latest time when several went. Both backends ask this, so they agree.
    public static func turns(
        arrived: [UserID], onlineBefore: Set<UserID>, departed: [(user: UserID, at: Int64)],
        stillOnline: Set<UserID>, at now: Int64
    ) -> [PresenceChange] {
        var seen: Set<UserID> = []
        let online = arrived.filter { !onlineBefore.contains($0) && seen.insert($0).inserted }
            .map { PresenceChange(userId: $0, online: true, at: now) }
        var left: [UserID: Int64] = [:]
        for (user, at) in departed where !stillOnline.contains(user) { left[user] = max(left[user] ?? at, at) }
        let offline = left.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { PresenceChange(userId: $0.key, online: false, at: $0.value) }
        return online + offline
    }
}

/// Who is online, kept per node so that it holds across nodes: each node writes which of
/// its users have a device connected, and heartbeats; a node silent past the timeout (it
/// crashed, or stopped) is swept, and its users who have no device elsewhere go offline.
/// A node that restarts leaves its rows until the sweep, so that users who reconnect
/// elsewhere meanwhile never show as offline (no storm of changes).
public protocol PresenceStore: Sendable {
    /// Notes that `node` is alive at `now`; answers false when it was not registered (its
    /// first heartbeat, or it had been swept as silent: it must then write all its users again).
    func heartbeat(node: String, at now: Int64) async throws -> Bool
    /// Records that on `node` the `connected` users now have a device and the `disconnected`
    /// ones none; answers the users whose presence across all nodes turned. Presence writes
    /// from several nodes are serialised among themselves (not with message writes), so each
    /// turn is reported once; each is a few set-based statements whatever the number of users.
    func updatePresence(node: String, connected: [UserID], disconnected: [UserID], at now: Int64) async throws
        -> [PresenceChange]
    /// Forgets the nodes not heard from since `deadline` and their users' devices, and devices
    /// recorded before `deadline` by a node that is not registered; answers the users left
    /// with no device on any node, offline since that node's last heartbeat (or the device's
    /// record).
    func sweepSilentNodes(before deadline: Int64) async throws -> [PresenceChange]
    /// The presence of `users` as `viewer` may see it (``PresenceRules/isVisible(_:toSelf:isFriend:blockedEitherWay:)``),
    /// in the order given; an id of no user is left out.
    func presence(of users: [UserID], for viewer: UserID) async throws -> [Presence]
    /// The presence of each of `viewer`'s friends, by id.
    func friendsPresence(for viewer: UserID) async throws -> [Presence]
    /// The friends of `userId` who are told of their presence as it changes: none when
    /// their setting is `nobody`, never anyone blocked either way.
    func presenceWatchers(of userId: UserID) async throws -> [UserID]
}

/// What the store knows of one user's presence and their tie to a viewer, from which
/// ``presence(for:)`` decides what the viewer sees; both backends read these facts.
public struct PresenceFacts: Sendable, Hashable {
    public var userId: UserID
    public var visibility: PresenceVisibility
    public var online: Bool
    public var lastSeenAt: Int64?
    public var isFriend: Bool
    public var blockedEitherWay: Bool

    public init(
        userId: UserID, visibility: PresenceVisibility, online: Bool, lastSeenAt: Int64?, isFriend: Bool,
        blockedEitherWay: Bool
    ) {
        self.userId = userId
        self.visibility = visibility
        self.online = online
        self.lastSeenAt = lastSeenAt
        self.isFriend = isFriend
        self.blockedEitherWay = blockedEitherWay
    }

    /// The user's presence as `viewer` may see it.
    public func presence(for viewer: UserID) -> Presence {
        guard
            PresenceRules.isVisible(
                visibility, toSelf: userId == viewer, isFriend: isFriend, blockedEitherWay: blockedEitherWay)
        else { return Presence(userId: userId, status: .hidden) }
        return online
            ? Presence(userId: userId, status: .online)
            : Presence(userId: userId, status: .offline, lastSeenAt: lastSeenAt)
    }
}
