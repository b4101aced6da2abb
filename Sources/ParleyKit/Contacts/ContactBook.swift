import Foundation
import ParleyCore

/// The user's contacts as a screen shows them: friends by the name the user knows them by,
/// the requests waiting for an answer each way, and the people they blocked. A snapshot;
/// ``ListDiff/changes(from:to:)`` turns two snapshots' `friends` into the steps a list view
/// applies.
public struct ContactBook: Equatable, Sendable {
    /// Friends by ``Contact/displayName`` (case-insensitive, then by id).
    public var friends: [Contact]
    /// The user's friend groups, oldest first.
    public var groups: [FriendGroup]
    /// Requests to the user still waiting for their answer (not ignored, not expired),
    /// newest first.
    public var incoming: [FriendRequest]
    /// The user's own requests still waiting, newest first.
    public var outgoing: [FriendRequest]
    /// Requests to the user they ignored, still open (they may still answer them), newest first.
    public var ignored: [FriendRequest]
    /// Blocked users, most recent first.
    public var blocked: [BlockedUser]

    public init(
        friends: [Contact], groups: [FriendGroup], incoming: [FriendRequest], outgoing: [FriendRequest],
        ignored: [FriendRequest] = [], blocked: [BlockedUser]
    ) {
        self.ignored = ignored
        self.friends = friends
        self.groups = groups
        self.incoming = incoming
        self.outgoing = outgoing
        self.blocked = blocked
    }

    /// The book of user `me` from what is held: requests are kept while open at `now`.
    public init(
        friends: [Contact], groups: [FriendGroup], requests: [FriendRequest], blocked: [BlockedUser], of me: UserID,
        at now: Int64
    ) {
        let open = requests.filter { $0.expiresAt > now }.sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
        self.init(
            friends: friends.sorted {
                let (left, right) = ($0.displayName.lowercased(), $1.displayName.lowercased())
                return left == right ? $0.user.id < $1.user.id : left < right
            }, groups: groups,
            incoming: open.filter { $0.to.id == me && $0.status == .pending },
            outgoing: open.filter { $0.from.id == me && $0.status == .pending },
            ignored: open.filter { $0.to.id == me && $0.status == .ignored },
            blocked: blocked.sorted { ($0.since, $0.user.id) > ($1.since, $1.user.id) })
    }

    /// The friends in friend group `id`, in ``friends``' order.
    public func friends(in id: FriendGroupID) -> [Contact] { friends.filter { $0.groups.contains(id) } }

    /// Whether `userId` is a friend.
    public func isFriend(_ userId: UserID) -> Bool { friends.contains { $0.user.id == userId } }
    /// Whether the user blocked `userId`.
    public func hasBlocked(_ userId: UserID) -> Bool { blocked.contains { $0.user.id == userId } }
}

extension Contact: Identifiable {
    public var id: UserID { user.id }
    /// The user's remark for them, or else their nickname.
    public var displayName: String { remark.isEmpty ? user.nickname : remark }
}
