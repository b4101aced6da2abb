import ParleyCore

/// Messages and read watermarks.
public protocol MessageStore: Sendable {
    /// Stores a message and assigns its seq, or returns the original for a repeated
    /// `(sender, clientMsgId)` (see ``SendRules``). Throws `not_a_member` when the sender is
    /// not in the conversation.
    func appendMessage(_ message: NewMessage) async throws -> AppendResult
    /// A page of history for a member (see ``HistoryWindow``).
    func history(of conversationId: ConversationID, for userId: UserID, query: HistoryQuery) async throws -> HistoryPage
    /// Moves a member's read watermark forward to `seq` (see ``ReadWatermark``); nil when it
    /// would not move.
    func markRead(_ conversationId: ConversationID, by userId: UserID, upTo seq: Int64, at now: Int64) async throws
        -> ReadReceipt?
}
