import ParleyCore

/// What one write to the ``ClientStore`` changed in the messages a view shows; the
/// ``SyncEngine`` passes it on as ``SyncEvent``s.
package struct StoreChanges: Equatable, Sendable {
    /// Messages not held before.
    package var inserted: [Message] = []
    /// Messages held before whose stored form was replaced: recalled, edited, or a reply whose
    /// quote changed with the message it quotes.
    package var updated: [Message] = []
    /// Seqs no longer shown (deleted for the user, or cleared), per conversation.
    package var hidden: [ConversationID: [Int64]] = [:]

    package init(inserted: [Message] = [], updated: [Message] = [], hidden: [ConversationID: [Int64]] = [:]) {
        self.inserted = inserted
        self.updated = updated
        self.hidden = hidden
    }

    package mutating func merge(_ other: StoreChanges) {
        inserted += other.inserted
        updated += other.updated
        hidden.merge(other.hidden) { $0 + $1 }
    }

    /// The same changes with messages in `(conversation, seq)` order, each once in its last
    /// form (a message inserted and then replaced in one write counts as inserted).
    package var ordered: StoreChanges {
        func key(_ message: Message) -> String { "\(message.conversationId)/\(message.seq)" }
        func order(_ messages: [Message]) -> [Message] {
            var last: [String: Message] = [:]
            for message in messages { last[key(message)] = message }
            return last.values.sorted { ($0.conversationId, $0.seq) < ($1.conversationId, $1.seq) }
        }
        let updated = order(updated)
        let newest = Dictionary(updated.map { (key($0), $0) }, uniquingKeysWith: { $1 })
        let inserted = order(inserted).map { newest[key($0)] ?? $0 }
        let insertedKeys = Set(inserted.map(key))
        return StoreChanges(
            inserted: inserted, updated: updated.filter { !insertedKeys.contains(key($0)) },
            hidden: hidden.mapValues { Array(Set($0)).sorted() })
    }
}
