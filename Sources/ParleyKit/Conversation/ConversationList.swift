import GRDB
import ParleyCore

/// The conversation list (SPEC 2.4): most recently active first, with unread counts,
/// updated live from the local store as sync and pushes change it.
///
/// A group the user left or was removed from stays in the list with its history, read-only
/// (its last message is usually the notice that says so): ``ClientStore/hasLeft(_:)`` and
/// ``GroupSnapshot/removal`` tell it apart, and an app that would rather hide it filters on
/// them.
public struct ConversationList: Sendable {
    let store: ClientStore

    public init(store: ClientStore) { self.store = store }

    /// The list as it is now.
    public func current() throws -> [ConversationSummary] { try store.conversations() }

    /// The list now, then again after every change.
    public func updates() -> AsyncValueObservation<[ConversationSummary]> { store.observeConversations() }
}
