import ParleyCore

/// A change to a committed message, made by a member (see ``MessageRules``).
public enum MessageChange: Sendable, Hashable {
    /// Deletes its content; a recalled form takes its place.
    case recall
    /// Replaces the text of a text or reply.
    case edit(text: String)
}

/// The facts ``MessageRules`` needs to decide a ``MessageChange``, read in the transaction
/// that writes the outcome.
public struct MessageChangeState: Sendable {
    public var message: Message
    public var conversationKind: ConversationKind
    public var dissolvedAt: Int64?
    public var muteAll: Bool
    /// The actor's membership; nil when they are not (or no longer) a member.
    public var actor: Member?
    /// The sender's current role; nil when the sender is no longer a member.
    public var senderRole: MemberRole?

    public init(
        message: Message, conversationKind: ConversationKind, dissolvedAt: Int64?, muteAll: Bool, actor: Member?,
        senderRole: MemberRole?
    ) {
        self.message = message
        self.conversationKind = conversationKind
        self.dissolvedAt = dissolvedAt
        self.muteAll = muteAll
        self.actor = actor
        self.senderRole = senderRole
    }
}
