import ParleyCore

/// Recall, edit, delete for me, receipts: what members do to committed messages.
public protocol MessageActionStore: Sendable {
    /// Message `id` if `userId` may read it (a member, or a former member up to where they
    /// may still read); else `message_not_found`.
    func message(_ id: MessageID, readableBy userId: UserID) async throws -> Message
    /// The message `senderId` committed with `clientMsgId`, if any (a retried forward finds
    /// its original here even after the source changed).
    func message(sentBy senderId: UserID, clientMsgId: String) async throws -> Message?
    /// Applies `change` to message `id` as ``MessageRules`` decide, announces `message.updated`
    /// to every member, and answers with the message as it now stands.
    func changeMessage(
        _ id: MessageID, _ change: MessageChange, by userId: UserID, windows: MessageWindows, at now: Int64
    ) async throws -> Message
    /// Hides `seqs` of a conversation from `userId` (history shows them as `deleted`) and
    /// announces `messages.deleted` to that user's devices.
    func deleteMessages(_ seqs: [Int64], in conversationId: ConversationID, for userId: UserID, at now: Int64)
        async throws -> MessagesDeleted
    /// Moves a member's delivered watermark forward to `seq` (clamped to the last seq);
    /// answers with the watermark as it now stands.
    func markDelivered(_ conversationId: ConversationID, by userId: UserID, upTo seq: Int64) async throws
        -> ReadReceipt
    /// Every member's read and delivered watermarks, for a member.
    func receipts(of conversationId: ConversationID, for userId: UserID) async throws -> ReceiptList
}
