import ParleyCore

/// One page of ``ParleyStore/sync(userId:since:limit:)``.
public struct SyncBatch: Sendable, Hashable {
    public var conversations: [ConversationSummary]
    public var events: [UserEvent]
    public var cursor: SyncCursor
    public var hasMore: Bool

    public init(conversations: [ConversationSummary], events: [UserEvent], cursor: SyncCursor, hasMore: Bool) {
        self.conversations = conversations
        self.events = events
        self.cursor = cursor
        self.hasMore = hasMore
    }
}
