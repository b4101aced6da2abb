import ParleyCore
import Synchronization

/// A committed change that online devices must hear about.
public enum StoreChange: Sendable {
    /// A new message; `recipients` are all members of its conversation.
    case message(Message, recipients: [UserID], origin: ConnectionTag?)
    /// Entries appended to users' event streams.
    case events([UserID: [UserEvent]])
    /// A member's read watermark moved; `recipients` are the conversation's members.
    case read(ReadReceipt, recipients: [UserID])
    /// A session was revoked: its sockets must close.
    case sessionRevoked(SessionID)
    /// This node may have missed changes (it lost its feed from the database): every client
    /// connected to it must resync.
    case resyncRequired
}

/// Delivers committed changes to subscribers, in the order the store commits them.
///
/// The store calls ``publish(_:)`` right after each commit, serialised with its writes, so a
/// subscriber sees changes in commit order. Subscribers must return quickly and must not
/// call back into the store synchronously.
public final class ChangeFeed: Sendable {
    private let subscribers = Mutex<[@Sendable (StoreChange) -> Void]>([])

    public init() {}

    /// Adds a subscriber for all changes published from now on.
    public func subscribe(_ subscriber: @escaping @Sendable (StoreChange) -> Void) {
        subscribers.withLock { $0.append(subscriber) }
    }

    /// Hands a committed change to every subscriber.
    public func publish(_ change: StoreChange) {
        for subscriber in subscribers.withLock({ $0 }) {
            subscriber(change)
        }
    }
}
