import ParleyCore

/// Which messages a history query selects: seqs strictly between `after` and `before`, at
/// most `limit` (clamped to 1…``Limits/maxPageSize``), the newest part of the range unless
/// `after` is given. Backends fetch ``fetchLimit`` rows in ``newestFirst`` order.
public struct HistoryWindow: Sendable {
    public let before: Int64?
    public let after: Int64?
    public let limit: Int

    public init(_ query: HistoryQuery) {
        before = query.before
        after = query.after
        limit = min(max(query.limit ?? Limits.defaultPageSize, 1), Limits.maxPageSize)
    }

    /// Without a lower bound the page is the newest part of the range.
    public var newestFirst: Bool { after == nil }

    /// One more than the page, to learn whether there is more.
    public var fetchLimit: Int { limit + 1 }

    /// The page from the rows fetched (ordered as ``newestFirst`` says), oldest first.
    public func page(_ fetched: [Message]) -> HistoryPage {
        var messages = Array(fetched.prefix(limit))
        if newestFirst { messages.reverse() }
        return HistoryPage(messages: messages, hasMore: fetched.count > limit)
    }
}
