import ParleyCore
import ParleyStore

/// A user's own settings for their conversations (pinned, muted, hidden, draft), the same on
/// all their devices.
struct SettingsService: Sendable {
    let store: any ParleyStore
    let clock: WallClock

    /// Changes the caller's settings for a conversation they are in; all their devices hear
    /// `settings.updated` (nothing happens when nothing changes). Answers the conversation.
    func update(_ change: UpdateSettingsRequest, of id: ConversationID, by identity: Identity) async throws
        -> ConversationSummary
    {
        guard change != UpdateSettingsRequest() else {
            throw ParleyError(
                .missingField, "Give at least one of 'pinned', 'muted', 'hidden', 'draft' and 'clearUpToSeq'.")
        }
        if let seq = change.clearUpToSeq, seq < 0 {
            throw ParleyError(.invalidField, "'clearUpToSeq' must not be negative.")
        }
        if let draft = change.draft {
            guard TextRules.length(draft) <= Limits.maxTextLength else {
                throw ParleyError(.invalidField, "'draft' may have at most \(Limits.maxTextLength) characters.")
            }
            guard !TextRules.containsControlCharacter(draft, allowing: ["\n", "\r", "\t"]) else {
                throw ParleyError(
                    .invalidField,
                    "'draft' must not contain control characters other than newline, carriage return and tab.")
            }
        }
        _ = try await store.updateSettings(change, of: id, for: identity.userId, at: clock.now())
        return try await store.conversation(id, for: identity.userId).conversation
    }
}
