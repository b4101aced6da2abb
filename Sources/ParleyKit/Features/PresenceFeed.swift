import ParleyCore

/// Who is online (`client.presence`): the friends' presence, fetched after every
/// (re)connection (replacing what was held for friends, so an ex-friend is forgotten then)
/// and kept current by the `presence` signals the server pushes as friends come and go; and
/// anyone else's on request. Held in memory only: presence read from a store after a restart
/// would be stale.
public actor PresenceFeed {
    private let session: Session
    private var known: [UserID: Presence] = [:]
    private var watchers = Subscribers<Presence>()
    /// Counts pushed presences; each user's last one is noted, so that an answer fetched
    /// while a push arrived does not undo it.
    private var pushes = 0
    private var lastPush: [UserID: Int] = [:]
    /// The friends of the last ``refresh()``.
    private var friends: Set<UserID> = []

    init(session: Session) {
        self.session = session
    }

    /// The presence of `userId` as last heard; nil if never asked or heard of.
    public func presence(of userId: UserID) -> Presence? { known[userId] }

    /// Fetches the presence of every friend (``refresh()`` runs it after each connection).
    @discardableResult
    public func refresh() async throws -> [Presence] {
        let mark = pushes
        let list: PresenceList = try await session.http(.getPresence)
        let current = Set(list.users.map(\.userId))
        for former in friends.subtracting(current) { known[former] = nil }
        friends = current
        apply(list.users, fetchedAfter: mark)
        return list.users
    }

    /// Fetches the presence of `userIds` (at most ``PresenceRules/maxUsersPerQuery``), in
    /// the order given; ids of no user are left out.
    @discardableResult
    public func fetch(_ userIds: [UserID]) async throws -> [Presence] {
        let mark = pushes
        let list: PresenceList = try await session.http(
            .getPresence, query: ["userIds": userIds.map { String($0.rawValue) }.joined(separator: ",")])
        apply(list.users, fetchedAfter: mark)
        return list.users
    }

    /// Every presence heard from now on, fetched or pushed.
    public func updates() -> AsyncStream<Presence> {
        watchers.add { [weak self] id in Task { await self?.unwatch(id) } }
    }

    private func unwatch(_ id: Int) { watchers.remove(id) }

    /// Applies a pushed `presence` signal.
    func receive(_ presence: Presence) {
        pushes += 1
        lastPush[presence.userId] = pushes
        apply([presence], fetchedAfter: pushes)
    }

    /// Applies presences, except those of users pushed since push number `mark`.
    private func apply(_ presences: [Presence], fetchedAfter mark: Int) {
        for presence in presences where known[presence.userId] != presence && (lastPush[presence.userId] ?? 0) <= mark {
            known[presence.userId] = presence
            watchers.yield(presence)
        }
    }
}
