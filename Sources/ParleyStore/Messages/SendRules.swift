import ParleyCore

/// What a send resolves to when its `(sender, clientMsgId)` was committed before: the
/// original message, if the retry aims at the original's conversation; reusing an id
/// elsewhere is a client bug and is refused.
public enum SendRules {
    /// The direct key whose conversation a backend must look up (without creating it) to
    /// check a retry; nil when the target names its conversation.
    public static func directKeyToCheck(retrying original: Message, aimedAt target: MessageTarget) -> String? {
        guard case .directWith(let peerId) = target else { return nil }
        return DirectKey.make(original.senderId, peerId)
    }

    /// The answer to a retry: the original, or `client_msg_id_reused`. `directConversation` is
    /// the conversation of ``directKeyToCheck(retrying:aimedAt:)``'s key, if it exists.
    public static func retry(
        of original: Message, aimedAt target: MessageTarget, directConversation: ConversationID?
    ) throws -> AppendResult {
        let sameTarget: Bool
        switch target {
        case .conversation(let id): sameTarget = id == original.conversationId
        case .directWith: sameTarget = directConversation == original.conversationId
        }
        guard sameTarget else { throw ParleyError.clientMessageIDReused(by: original) }
        return AppendResult(message: original, duplicate: true)
    }
}
