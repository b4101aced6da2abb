import ParleyCore

/// Message search (issue 15): an index of each message's folded searchable text
/// (``SearchText``), written in the transaction that stores, edits or recalls the message.
///
/// SQLite keeps it in an FTS5 table with the trigram tokenizer, PostgreSQL in a table with a
/// `pg_trgm` GIN index; terms shorter than ``SearchText/indexedTermLength`` are matched by a
/// scan of the user's own messages. Messages stored before the index existed are indexed in
/// the background, newest first (``indexSearchBacklog(limit:)``).
public protocol SearchStore: Sendable {
    /// Up to `query.limit + 1` messages that `userId` may read and that hold every term, in
    /// the search's order (``MessageSearchQuery``) after `query.cursor`. What the user may read is
    /// what history shows them: their conversations (those they left up to when they left),
    /// above a history they cleared, without what they deleted for themselves or what was
    /// recalled.
    func searchMessages(_ query: MessageSearchQuery, for userId: UserID) async throws -> [Message]

    /// Indexes up to `limit` of the messages stored before the index existed, newest first;
    /// answers how many it looked at (0 once none is left). Safe to run on several nodes at once.
    func indexSearchBacklog(limit: Int) async throws -> Int

    /// The groups `userId` is a member of, with their names and sizes (``NameSearch`` finds
    /// them by name).
    func groupNames(of userId: UserID) async throws -> [GroupName]

    /// Up to `limit` pairs of one of `userId`'s groups and a member of it (not `userId`) whose
    /// folded nickname or username holds every term, by group then member.
    func groupMembers(of userId: UserID, matching terms: [String], limit: Int) async throws -> [GroupMemberName]
}
