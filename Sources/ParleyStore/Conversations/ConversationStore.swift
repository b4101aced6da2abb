import ParleyCore

/// Conversations, their members and their profile.
public protocol ConversationStore: Sendable {
    /// The direct conversation between two users, created (with `conversation.added` events
    /// for both) if it does not exist yet.
    func openDirectConversation(between userId: UserID, and peerId: UserID, at now: Int64) async throws
        -> ConversationSummary
    /// A new group owned by `ownerId` with the given other members, taking at most
    /// `memberLimit` members. (Later changes go through ``GroupStore``.)
    func createGroup(name: String, ownerId: UserID, memberIds: [UserID], memberLimit: Int, at now: Int64)
        async throws -> ConversationSummary
    /// Changes `userId`'s own settings for a conversation they are in (see
    /// ``ConversationSettings/applying(_:at:maxSeq:)``), with a `settings.updated` event to
    /// all their devices; nil when nothing changes.
    func updateSettings(
        _ change: UpdateSettingsRequest, of conversationId: ConversationID, for userId: UserID, at now: Int64
    ) async throws -> ConversationSettings?
    /// The conversation as `userId` sees it; throws `not_a_member` when they are not in it.
    func conversation(_ id: ConversationID, for userId: UserID) async throws -> ConversationDetail
    /// A page of a user's conversations, most recently active first, starting after `cursor`.
    func conversations(of userId: UserID, after cursor: ConversationListCursor?, limit: Int) async throws
        -> [ConversationSummary]
}
