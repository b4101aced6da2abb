import GRDB
import ParleyCore

/// The conversation list (SPEC 2.4): most recently active first, with unread counts,
/// updated live from the local store as sync and pushes change it.
public struct ConversationList: Sendable {
    let store: ClientStore

    public init(store: ClientStore) { self.store = store }

    /// The list as it is now.
    public func current() throws -> [ConversationSummary] { try store.conversations() }

    /// The list now, then again after every change.
    public func updates() -> AsyncValueObservation<[ConversationSummary]> { store.observeConversations() }
}
