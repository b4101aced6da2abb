import ParleyCore

/// What the ``SyncEngine`` stored that a view of a conversation shows.
public enum SyncEvent: Sendable, Equatable {
    /// Committed messages this device did not hold before, in seq order per conversation.
    case messages([Message])
    /// Messages held before that changed, as they now stand: recalled, edited, or replies
    /// whose quote changed with the message they quote.
    case updated([Message])
    /// Seqs of a conversation no longer shown: the user deleted them for themselves, or
    /// cleared the history up to them.
    case hidden(ConversationID, seqs: [Int64])
    /// Another member's read watermark in a conversation reached `seq` (it never goes back).
    case othersRead(ConversationID, upTo: Int64)
    /// One member's read watermark moved (a `receipt` frame): in a direct conversation the
    /// same as ``othersRead(_:upTo:)``; in a group it changes who read what.
    case receipt(ReadReceipt)
    /// The other member of a direct conversation received messages up to `seq` on one of
    /// their devices (it never goes back).
    case othersDelivered(ConversationID, upTo: Int64)
}
