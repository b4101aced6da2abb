import ParleyCore

/// A friend request as stored: one row per ordered pair of users.
public struct FriendRequestRecord: Sendable, Hashable {
    public var id: FriendRequestID
    public var fromId: UserID
    public var toId: UserID
    public var message: String
    public var status: FriendRequestStatus
    public var createdAt: Int64
    public var updatedAt: Int64
    public var expiresAt: Int64

    public init(
        id: FriendRequestID, fromId: UserID, toId: UserID, message: String, status: FriendRequestStatus,
        createdAt: Int64, updatedAt: Int64, expiresAt: Int64
    ) {
        self.id = id
        self.fromId = fromId
        self.toId = toId
        self.message = message
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
    }

    /// Whether it still waits for the recipient (pending or ignored, not lapsed).
    public func isOpen(at now: Int64) -> Bool {
        (status == .pending || status == .ignored) && now < expiresAt
    }

    /// The status `viewer` sees: an open request past its expiry is `expired`, and its sender
    /// sees an ignored request as `pending`.
    public func status(for viewer: UserID, at now: Int64) -> FriendRequestStatus {
        guard status == .pending || status == .ignored else { return status }
        if now >= expiresAt { return .expired }
        return viewer == fromId ? .pending : status
    }

    /// The request as `viewer` sees it, with both users' profiles.
    public func view(from: User, to: User, for viewer: UserID, at now: Int64) -> FriendRequest {
        FriendRequest(
            id: id, from: from, to: to, message: message, status: status(for: viewer, at: now), createdAt: createdAt,
            updatedAt: updatedAt, expiresAt: expiresAt)
    }
}
