import ParleyCore

/// Where a page of `GET /v1/conversations` ends: conversations are listed most recently
/// active first, so the next page starts after this (last activity, id).
public struct ConversationListCursor: Sendable, Hashable {
    public var lastActivityAt: Int64
    public var conversationId: ConversationID

    public init(after summary: ConversationSummary) {
        lastActivityAt = summary.lastActivityAt
        conversationId = summary.id
    }

    /// The opaque wire form, e.g. `l1.1795000000000.42`.
    public var encoded: String { "l1.\(lastActivityAt).\(conversationId.rawValue)" }

    /// Parses the wire form; throws `invalid_cursor` for anything else.
    public init(encoded: String) throws {
        let parts = encoded.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "l1", let lastActivityAt = Int64(parts[1]), let id = Int64(parts[2]), id > 0
        else {
            throw ParleyError(.invalidCursor, "The list cursor is not one this server issued; list from the start.")
        }
        self.lastActivityAt = lastActivityAt
        conversationId = ConversationID(id)
    }
}
