import ParleyCore

/// The user's own settings for each conversation (`client.settings`): pinned, muted, hidden,
/// and the draft. They are the same on all the user's devices.
///
/// Each change goes to the server (`PATCH /v1/conversations/{id}/settings`), and the summary
/// it answers is saved in the ``ClientStore`` at once; every device of the user, this one
/// included, then hears it as a `settings.updated` event, live or through sync after being
/// offline. The store keeps the seq of the event that last set a conversation's settings, so
/// a summary read before a newer event never undoes it. ``ConversationList`` orders and
/// filters by them.
public struct Settings: Sendable {
    let store: ClientStore
    let session: Session

    /// The settings of a conversation as this device holds them (the defaults when it holds
    /// none).
    public func settings(of id: ConversationID) throws -> ConversationSettings { try store.settings(of: id) }

    /// Pins it: pinned conversations come first in the list, in the order they were pinned
    /// (pinning again keeps its place).
    @discardableResult
    public func pin(_ id: ConversationID) async throws -> ConversationSummary {
        try await update(id, UpdateSettingsRequest(pinned: true))
    }

    @discardableResult
    public func unpin(_ id: ConversationID) async throws -> ConversationSummary {
        try await update(id, UpdateSettingsRequest(pinned: false))
    }

    /// Mutes it: no push for it, and its unread count shows as a dot.
    @discardableResult
    public func mute(_ id: ConversationID) async throws -> ConversationSummary {
        try await update(id, UpdateSettingsRequest(muted: true))
    }

    @discardableResult
    public func unmute(_ id: ConversationID) async throws -> ConversationSummary {
        try await update(id, UpdateSettingsRequest(muted: false))
    }

    /// Hides it from the list until a new message arrives in it.
    @discardableResult
    public func hide(_ id: ConversationID) async throws -> ConversationSummary {
        try await update(id, UpdateSettingsRequest(hidden: true))
    }

    /// Shows a hidden conversation again.
    @discardableResult
    public func unhide(_ id: ConversationID) async throws -> ConversationSummary {
        try await update(id, UpdateSettingsRequest(hidden: false))
    }

    /// Saves the text typed but not sent (at most ``Limits/maxTextLength`` characters; no
    /// control characters but newline, carriage return and tab); an empty text clears it.
    @discardableResult
    public func saveDraft(_ text: String, in id: ConversationID) async throws -> ConversationSummary {
        try await update(id, UpdateSettingsRequest(draft: text))
    }

    /// Sets every field `change` sets at once.
    @discardableResult
    public func update(_ id: ConversationID, _ change: UpdateSettingsRequest) async throws -> ConversationSummary {
        let summary: ConversationSummary = try await session.http(.updateSettings, id, body: change)
        try store.saveConversation(summary)
        return summary
    }
}
