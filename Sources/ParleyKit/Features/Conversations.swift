import Foundation
import ParleyCore

/// The conversations feature of a ``ParleyClient`` (`client.conversations`): finding and
/// creating conversations, the live list, and the one ``ChatContext`` per open conversation.
///
/// Feature facades are small values over the engine's parts (session, sync engine, send
/// queue, store); ``Groups`` sits beside it, and later features (contacts, files) are added
/// the same way.
public struct Conversations: Sendable {
    let store: ClientStore
    let session: Session
    let sync: SyncEngine
    let sendQueue: SendQueue
    let requests: ServerRequests
    let groups: Groups
    let messages: MessageActions
    let contexts: ChatContexts

    /// The conversation list, live.
    public var list: ConversationList { ConversationList(store: store) }

    /// The direct conversation with a user: from the store when this device has it (so it
    /// opens, and takes messages for the send queue, while the server is unreachable), else
    /// from the server, which creates it if needed.
    public func openDirect(withUsername username: String) async throws -> ConversationSummary {
        if let known = try store.directConversation(withUsername: username) { return known }
        let user = try await user(named: username)
        let detail: ConversationDetail = try await session.http(.openDirect, body: OpenDirectRequest(userId: user.id))
        try store.saveConversation(detail.conversation)
        return detail.conversation
    }

    /// A new group with the named users.
    public func createGroup(name: String, usernames: [String]) async throws -> ConversationSummary {
        var ids: [UserID] = []
        for username in usernames { ids.append(try await user(named: username).id) }
        let detail: ConversationDetail = try await session.http(
            .createGroup, body: CreateGroupRequest(name: name, memberIds: ids))
        try store.saveDetail(detail)
        return detail.conversation
    }

    /// Renames a group this user owns or administers (``Groups/update(_:_:)`` with a name);
    /// every member's devices hear it as a `conversation.updated` event.
    @discardableResult
    public func rename(_ conversationId: ConversationID, to name: String) async throws -> ConversationSummary {
        try await groups.update(conversationId, UpdateGroupRequest(name: name)).conversation
    }

    /// A member's profile, from the store or the server.
    public func user(_ id: UserID) async throws -> User {
        if let user = try store.user(id) { return user }
        let user: User = try await session.http(.getUser, id)
        try store.saveUser(user)
        return user
    }

    /// A user by username (any case), from the server; their profile is kept in the store.
    public func user(named username: String) async throws -> User {
        let user: User = try await session.http(.getUserByUsername, username)
        try store.saveUser(user)
        return user
    }

    /// Moves the read watermark (locally at once, then on the server).
    public func markRead(_ conversationId: ConversationID, upTo seq: Int64) async throws {
        try store.markReadLocally(conversationId, upTo: seq)
        let _: ReadReceipt = try await requests(
            .read, ReadRequest(conversationId: conversationId, seq: seq), http: .markRead, conversationId)
    }

    /// The one ``ChatContext`` of a conversation, shared by everyone who opens it. It follows
    /// the sync engine and the send queue from the moment it is made.
    public func chat(_ conversationId: ConversationID) async -> ChatContext {
        let selfId = await session.currentUser?.id ?? UserID(0)
        // Subscribed before the context exists, so it misses nothing stored after its first
        // read; unused (and so ended) when the context exists already.
        let syncEvents = await sync.events()
        let sendUpdates = await sendQueue.updates()
        return contexts.context(for: conversationId) {
            ChatContext(
                conversationId: conversationId, selfId: selfId, conversations: self, syncEvents: syncEvents,
                sendUpdates: sendUpdates)
        }
    }
}

/// The open ``ChatContext``s, held weakly: a context lives as long as someone uses it.
final class ChatContexts: @unchecked Sendable {
    private let lock = NSLock()
    private var contexts: [ConversationID: WeakContext] = [:]

    private struct WeakContext {
        weak var context: ChatContext?
    }

    /// The living context of a conversation, or a new one from `make`.
    func context(for id: ConversationID, make: () -> ChatContext) -> ChatContext {
        lock.withLock {
            if let existing = contexts[id]?.context { return existing }
            let context = make()
            contexts[id] = WeakContext(context: context)
            return context
        }
    }
}
