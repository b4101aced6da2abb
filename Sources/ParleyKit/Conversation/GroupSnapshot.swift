import ParleyCore

/// A group as this device knows it, for a group screen: its profile, its members, the join
/// requests waiting for the viewer, and whether the viewer is still in it. Published by
/// ``Groups/observe(_:)`` whenever any of it changes.
public struct GroupSnapshot: Sendable, Hashable {
    public var conversationId: ConversationID
    /// Nil until this device has the group (a direct conversation has none).
    public var profile: GroupProfile?
    /// The members, in the order they joined (as they were when the viewer left, once left).
    public var members: [Member]
    /// Whether ``members`` is the whole, current list: false until the list was fetched once
    /// (``Groups/refresh(_:)``, which ``Groups/observe(_:)`` does), after a sync that started
    /// afresh (without a cursor, so earlier changes are not replayed), and after the viewer
    /// left, since nobody tells them about the members any more.
    public var membersAreComplete: Bool
    /// Pending requests to join, oldest first: all of them for an owner or admin, and the
    /// viewer's own request otherwise.
    public var pendingRequests: [JoinRequest]
    /// How the viewer left or was removed; nil while they are a member. A group they left
    /// stays on the device with its history up to `lastSeq` (the notice of it), read-only.
    public var removal: ConversationRemoved?

    public init(
        conversationId: ConversationID, profile: GroupProfile?, members: [Member], membersAreComplete: Bool,
        pendingRequests: [JoinRequest], removal: ConversationRemoved?
    ) {
        self.conversationId = conversationId
        self.profile = profile
        self.members = members
        self.membersAreComplete = membersAreComplete
        self.pendingRequests = pendingRequests
        self.removal = removal
    }

    /// Whether the viewer left or was removed.
    public var hasLeft: Bool { removal != nil }

    public func member(_ userId: UserID) -> Member? { members.first { $0.userId == userId } }
}
