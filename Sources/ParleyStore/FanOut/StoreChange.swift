import ParleyCore

/// A committed change that online devices must hear about; the store publishes it on the
/// node's ``FanOut`` after the commit, in commit order.
public enum StoreChange: Sendable {
    /// A new message; `recipients` are all members of its conversation.
    case message(Message, recipients: [UserID], origin: ConnectionTag?)
    /// Entries appended to users' event streams: each user's in seq order, each as the JSON
    /// text of the ``UserEvent`` the store wrote, so that devices get it without a second
    /// encoding (or, from another node, a decoding and an encoding).
    case events([UserID: [String]])
    /// A member's read watermark moved; `recipients` are the conversation's members when it
    /// moved.
    case read(ReadReceipt, recipients: [UserID])
    /// A member's delivered watermark moved in a direct conversation; `recipients` are its members.
    case delivered(ReadReceipt, recipients: [UserID])
    /// A session was revoked: its sockets must close.
    case sessionRevoked(SessionID)
    /// This node may have missed changes (it lost its feed from the database): every client
    /// connected to it must resync.
    case resyncRequired
}
