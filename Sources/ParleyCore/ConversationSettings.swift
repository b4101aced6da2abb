/// One user's own settings for one conversation, the same on all their devices (synced
/// through `settings.updated` events and the summaries of sync).
public struct ConversationSettings: Codable, Sendable, Hashable {
    /// When it was pinned (ms since the epoch); absent when not pinned. Pinned conversations
    /// are listed first, in the order they were pinned.
    public var pinnedAt: Int64?
    /// No push for it; its unread count shows as a dot.
    public var muted: Bool
    /// Hidden from the list while its `maxSeq` is at most this (a new message shows it
    /// again); absent when not hidden.
    public var hiddenUpToSeq: Int64?
    /// Text typed but not sent; empty when none.
    public var draft: String
    /// When the draft was last saved (ms since the epoch); absent when there is none.
    public var draftSavedAt: Int64?
    /// History up to this seq is cleared for this user (hidden on all their devices; others
    /// keep it); absent when never cleared.
    public var clearedUpToSeq: Int64?

    public init(
        pinnedAt: Int64? = nil, muted: Bool = false, hiddenUpToSeq: Int64? = nil, draft: String = "",
        draftSavedAt: Int64? = nil, clearedUpToSeq: Int64? = nil
    ) {
        self.pinnedAt = pinnedAt
        self.muted = muted
        self.hiddenUpToSeq = hiddenUpToSeq
        self.draft = draft
        self.draftSavedAt = draftSavedAt
        self.clearedUpToSeq = clearedUpToSeq
    }

    /// Whether a conversation whose last seq is `maxSeq` is hidden from the list.
    public func hides(maxSeq: Int64) -> Bool { hiddenUpToSeq.map { maxSeq <= $0 } ?? false }

    /// The settings after `change` at `now`, for a conversation whose last seq is `maxSeq`:
    /// pinning again keeps the first pin time, hiding hides what is there now, and a draft
    /// keeps when it was saved.
    public func applying(_ change: UpdateSettingsRequest, at now: Int64, maxSeq: Int64) -> ConversationSettings {
        var next = self
        if let pinned = change.pinned { next.pinnedAt = pinned ? (pinnedAt ?? now) : nil }
        if let muted = change.muted { next.muted = muted }
        if let hidden = change.hidden { next.hiddenUpToSeq = hidden ? maxSeq : nil }
        if let clear = change.clearUpToSeq {
            let upTo = min(clear, maxSeq)
            if upTo > (clearedUpToSeq ?? 0) { next.clearedUpToSeq = upTo }
        }
        if let draft = change.draft, draft != self.draft {
            next.draft = draft
            next.draftSavedAt = draft.isEmpty ? nil : now
        }
        return next
    }
}

/// `PATCH /v1/conversations/{conversationId}/settings`: each field present is set; at least
/// one must be.
public struct UpdateSettingsRequest: Codable, Sendable, Hashable, StrictDecodable {
    public var pinned: Bool?
    public var muted: Bool?
    /// True hides the conversation until a new message arrives; false shows it again.
    public var hidden: Bool?
    /// At most ``Limits/maxTextLength`` characters; empty clears it.
    public var draft: String?
    /// Clears history up to this seq for the caller (clamped to the last seq; a clear only
    /// moves forward).
    public var clearUpToSeq: Int64?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case pinned, muted, hidden, draft, clearUpToSeq
    }

    public init(
        pinned: Bool? = nil, muted: Bool? = nil, hidden: Bool? = nil, draft: String? = nil, clearUpToSeq: Int64? = nil
    ) {
        self.pinned = pinned
        self.muted = muted
        self.hidden = hidden
        self.draft = draft
        self.clearUpToSeq = clearUpToSeq
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pinned = try container.decodeIfPresent(Bool.self, forKey: .pinned)
        muted = try container.decodeIfPresent(Bool.self, forKey: .muted)
        hidden = try container.decodeIfPresent(Bool.self, forKey: .hidden)
        draft = try container.decodeIfPresent(String.self, forKey: .draft)
        clearUpToSeq = try container.decodeIntegerIfPresent(Int64.self, forKey: .clearUpToSeq)
    }
}
