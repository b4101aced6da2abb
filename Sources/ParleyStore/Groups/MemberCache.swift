import ParleyCore
import Synchronization

/// The member lists of recently active conversations, each under the `members_version` it
/// was read at, so that sending to a large group does not read its members per message.
///
/// Every change to a conversation's members gives it a new `members_version` in the same
/// transaction, so a list found under the version a sender just read is the list of that
/// moment. Backends only store lists read from committed state. Bounded: when full, it
/// starts afresh (the lists are cheap to read again).
public final class MemberCache: Sendable {
    private let capacity: Int
    private let lists = Mutex<[ConversationID: (version: Int64, members: [UserID])]>([:])

    public init(capacity: Int = 4_096) { self.capacity = capacity }

    /// The members of `id` at `version`, if cached.
    public func members(of id: ConversationID, at version: Int64) -> [UserID]? {
        lists.withLock { lists in
            guard let entry = lists[id], entry.version == version else { return nil }
            return entry.members
        }
    }

    /// Remembers the members of `id` at `version` (a later version replaces an earlier one).
    public func store(_ members: [UserID], of id: ConversationID, at version: Int64) {
        lists.withLock { lists in
            if let entry = lists[id], entry.version > version { return }
            if lists.count >= capacity, lists[id] == nil { lists.removeAll(keepingCapacity: true) }
            lists[id] = (version, members)
        }
    }
}
