import GRDB
import ParleyCore

/// The conversation list (SPEC 2.4), updated live from the local store as sync and pushes
/// change it: pinned conversations first, in the order they were pinned, then the others,
/// most recently active first; each with its unread count and the user's own settings
/// (``ConversationSummary/settings``: muted, draft).
///
/// A conversation the user hid is left out until a new message arrives in it (its `maxSeq`
/// passes ``ConversationSettings/hiddenUpToSeq``); ``ClientStore/conversations()`` still has
/// it.
///
/// A group the user left or was removed from stays in the list with its history, read-only
/// (its last message is usually the notice that says so): ``ClientStore/hasLeft(_:)`` and
/// ``GroupSnapshot/removal`` tell it apart, and an app that would rather hide it filters on
/// them.
public struct ConversationList: Sendable {
    let store: ClientStore

    public init(store: ClientStore) { self.store = store }

    /// The list as it is now.
    public func current() throws -> [ConversationSummary] { try store.listedConversations() }

    /// The list now, then again after every change to it.
    public func updates() -> AsyncValueObservation<[ConversationSummary]> { store.observeListedConversations() }

    /// The list as shown, from every conversation held: the hidden ones left out, the pinned
    /// first (earliest pinned first), the rest in the order given (most recently active
    /// first).
    public static func arranged(_ conversations: [ConversationSummary]) -> [ConversationSummary] {
        let shown = conversations.filter { !$0.settings.hides(maxSeq: $0.maxSeq) }
        let pinned = shown.enumerated().compactMap { index, summary in
            summary.settings.pinnedAt.map { (pinnedAt: $0, index: index, summary: summary) }
        }.sorted { ($0.pinnedAt, $0.index) < ($1.pinnedAt, $1.index) }.map(\.summary)
        return pinned + shown.filter { $0.settings.pinnedAt == nil }
    }
}

extension ConversationSummary {
    /// Whether the user pinned it.
    public var isPinned: Bool { settings.pinnedAt != nil }
    /// Whether the user muted it (no push; its unread count shows as a dot).
    public var isMuted: Bool { settings.muted }
    /// The text the user typed in it but did not send; empty when none.
    public var draft: String { settings.draft }
}
