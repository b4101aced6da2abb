import ParleyCore

/// What the ``SyncEngine`` stored that a view of a conversation shows.
public enum SyncEvent: Sendable, Equatable {
    /// Committed messages this device did not hold before, in seq order per conversation.
    case messages([Message])
    /// Another member's read watermark in a conversation reached `seq` (it never goes back).
    case othersRead(ConversationID, upTo: Int64)
}
