import ParleyCore

/// How a sync is paged. In one snapshot a backend reads the user's event seq and the change
/// version counter, then the events after ``since`` and the user's conversations whose own
/// or membership version is above it, ``fetchLimit`` of each, in order; ``batch(eventBodies:changed:currentVersion:)``
/// makes the page and the next cursor.
public struct SyncPaging: Sendable {
    /// Where the page starts; no cursor means a full snapshot of conversations, and only the
    /// events from now on.
    public let since: SyncCursor
    public let limit: Int

    public init(cursor: SyncCursor?, userEventSeq: Int64, limit: Int) {
        since = cursor ?? SyncCursor(eventSeq: userEventSeq, version: 0)
        self.limit = limit
    }

    /// One more than the page, to learn whether there is more.
    public var fetchLimit: Int { limit + 1 }

    /// The page. `eventBodies` are the stored events after `since` in seq order; `changed`
    /// the conversations above `since.version` with their change version, in that order.
    /// The next cursor is the last event returned and either the last version returned
    /// (more conversations to come) or `currentVersion`: the newest version whose changes
    /// are all in the snapshot. A backend whose snapshot may also hold newer ones
    /// (PostgreSQL's concurrent writes) keeps the cursor at it all the same.
    public func batch(
        eventBodies: [String], changed: [(summary: ConversationSummary, changeVersion: Int64)], currentVersion: Int64
    ) throws -> SyncBatch {
        let events = try eventBodies.prefix(limit).map { try JSONText.decode(UserEvent.self, from: $0) }
        let page = changed.prefix(limit)
        let moreConversations = changed.count > limit
        let next = SyncCursor(
            eventSeq: events.last?.seq ?? since.eventSeq,
            version: moreConversations ? min(page.last!.changeVersion, currentVersion) : currentVersion)
        return SyncBatch(
            conversations: page.map(\.summary), events: events, cursor: next,
            hasMore: eventBodies.count > limit || moreConversations)
    }
}
