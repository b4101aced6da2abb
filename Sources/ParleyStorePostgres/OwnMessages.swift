import ParleyCore
import Synchronization

/// The messages this node stored, by id, until its fan-out meets their NOTIFY: the node that
/// sent a message delivers it without reading back what it has just written or decoding its
/// note. Other nodes take it from the note (``ChangeNote/carried``), or read it when it was
/// too large to carry. A message whose transaction rolled back is never notified, so its entry waits
/// until the store reaches `capacity` and is emptied; the fan-out then reads, as elsewhere.
final class OwnMessages: Sendable {
    private let capacity: Int
    private let messages = Mutex<[MessageID: Message]>([:])

    init(capacity: Int = 1_024) { self.capacity = capacity }

    /// Remembers `message`, stored by a transaction not yet committed.
    func keep(_ message: Message) {
        messages.withLock { messages in
            if messages.count >= capacity { messages.removeAll(keepingCapacity: true) }
            messages[message.id] = message
        }
    }

    /// The message with `id` if this node stored it, forgotten once taken.
    func take(_ id: MessageID) -> Message? {
        messages.withLock { $0.removeValue(forKey: id) }
    }
}
