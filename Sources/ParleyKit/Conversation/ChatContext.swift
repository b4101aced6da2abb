import ParleyCore
import Synchronization

/// The single owner of one open conversation's message list (SPEC 4), shared by every view
/// that shows it. It loads from the local store first, then fills holes from the server,
/// merges new messages by binary search (no re-sort), follows its own messages from
/// `sending` to `sent`/`read`/`failed`, and publishes a snapshot followed by batched changes.
///
/// UI-free: views observe ``updates()`` and call its actions; they never edit the list.
///
/// It is not fed by the engine: from the moment it is made it follows the ``SyncEngine``'s
/// ``SyncEngine/events()`` and the ``SendQueue``'s ``SendQueue/updates()`` for its
/// conversation. Both feeds are idempotent to apply (a message is merged once per seq, an
/// item's newest state wins), so their order relative to ``load(pageSize:)`` does not matter.
public actor ChatContext {
    public nonisolated let conversationId: ConversationID
    private let conversations: Conversations
    private let selfId: UserID
    /// Committed messages in seq order, from the oldest loaded one on.
    private var committed: [ChatItem] = []
    /// Own messages not committed yet, in the order they were queued.
    private var pending: [ChatItem] = []
    private var othersReadSeq: Int64 = 0
    private var published: [ChatItem] = []
    private var observers = Subscribers<ChatUpdate>()
    /// Whether older messages may exist before the first loaded one.
    public private(set) var hasOlder = true
    /// The two feed loops, ended when the context goes away.
    private let feeds = Mutex<[Task<Void, Never>]>([])

    init(
        conversationId: ConversationID, selfId: UserID, conversations: Conversations,
        syncEvents: AsyncStream<SyncEvent>, sendUpdates: AsyncStream<SendUpdate>
    ) {
        self.conversationId = conversationId
        self.conversations = conversations
        self.selfId = selfId
        // The feeds hold the context weakly, and are cancelled when it goes.
        var feeds: [Task<Void, Never>] = []
        feeds.append(
            Task { [weak self] in
                for await event in syncEvents {
                    guard let self else { return }
                    await self.receive(event)
                }
            })
        feeds.append(
            Task { [weak self] in
                for await update in sendUpdates {
                    guard let self else { return }
                    await self.receive(update)
                }
            })
        self.feeds.withLock { $0 = feeds }
    }

    deinit {
        for feed in feeds.withLock({ $0 }) { feed.cancel() }
    }

    /// The current list.
    public var items: [ChatItem] { committed + pending }

    /// The list now, then every change to it.
    public func updates() -> AsyncStream<ChatUpdate> {
        observers.add(initial: .snapshot(published)) { [weak self] id in Task { await self?.removeObserver(id) } }
    }

    private func removeObserver(_ id: Int) { observers.remove(id) }

    /// Shows the newest page from the store at once, then fills the holes in it from the server.
    public func load(pageSize: Int = 50) async throws {
        let store = conversations.store
        othersReadSeq = try store.othersReadSeq(conversationId)
        committed = try store.messages(in: conversationId, limit: pageSize).map(item)
        pending = try store.outbox()
            .filter { $0.conversationId == conversationId && $0.state.isPending }
            .map { ChatItem(pending: $0, selfId: selfId) }
        publish()
        if let maxSeq = try store.conversation(conversationId)?.maxSeq, maxSeq > 0 {
            try await conversations.sync.fillHoles(
                in: conversationId, upTo: maxSeq, from: max(1, maxSeq - Int64(pageSize) + 1))
        }
        hasOlder = (committed.first?.seq ?? 1) > 1
    }

    /// Loads the page before the oldest message shown; false when there is nothing older.
    @discardableResult
    public func loadOlder(pageSize: Int = 50) async throws -> Bool {
        guard hasOlder else { return false }
        let oldest = committed.first?.seq
        let older = try await conversations.sync.messages(in: conversationId, before: oldest, limit: pageSize)
        let fresh = older.filter { message in oldest.map { message.seq < $0 } ?? true }
        committed.insert(contentsOf: fresh.map(item), at: 0)
        hasOlder = (committed.first?.seq ?? 1) > 1
        publish()
        return hasOlder
    }

    // MARK: Actions

    /// Sends a text message (shown at once as `sending`); with a `dependency`, not before it
    /// finished.
    @discardableResult
    public func send(text: String, after dependency: SendDependency? = nil) async throws -> SendHandle {
        showQueued(try await conversations.sendQueue.send(text: text, to: conversationId, after: dependency))
    }

    /// Sends a message of any kind.
    @discardableResult
    public func send(_ kind: MessageKind, content: JSONValue, after dependency: SendDependency? = nil) async throws
        -> SendHandle
    {
        showQueued(try await conversations.sendQueue.send(kind, content, to: conversationId, after: dependency))
    }

    /// Shows a message just queued before `send` returns (the queue's update, which may come
    /// later, changes nothing then: the newest state wins).
    private func showQueued(_ handle: SendHandle) -> SendHandle {
        if let item = try? conversations.store.outboxItem(handle.clientMsgId) { apply(item) }
        return handle
    }

    /// Puts a failed message back in the queue with its original id.
    public func resend(_ clientMsgId: String) async throws { try await conversations.sendQueue.resend(clientMsgId) }

    /// Removes a message from this device only (a failed one is also dropped from the outbox).
    public func deleteLocally(_ item: ChatItem) async throws {
        if let seq = item.seq {
            try conversations.store.deleteLocalMessage(conversationId, seq: seq)
            committed.removeAll { $0.id == item.id }
            publish()
        } else {
            try await conversations.sendQueue.cancel(item.clientMsgId)
            remove(clientMsgId: item.clientMsgId)
        }
    }

    /// Marks everything shown as read.
    public func markRead() async throws {
        guard let last = committed.last?.seq else { return }
        try await conversations.markRead(conversationId, upTo: last)
    }

    // MARK: Following the sync engine and the send queue

    private func receive(_ event: SyncEvent) {
        switch event {
        case .messages(let messages):
            merge(messages.filter { $0.conversationId == conversationId })
        case .othersRead(let id, let seq) where id == conversationId:
            othersRead(upTo: seq)
        case .othersRead:
            break
        }
    }

    private func receive(_ update: SendUpdate) {
        guard update.item.conversationId == conversationId else { return }
        switch update.state {
        case .cancelled:
            remove(clientMsgId: update.item.clientMsgId)
        case .sent:
            apply(update.item)
            if let message = update.message { merge([message]) }
        case .queued, .sending, .failed:
            apply(update.item)
        }
    }

    /// Merges committed messages (any order, duplicates ignored) into the seq-ordered list.
    private func merge(_ messages: [Message]) {
        var changed = false
        let floor = committed.first?.seq ?? 1
        for message in messages where message.seq >= floor || committed.isEmpty {
            let index = insertionIndex(for: message.seq)
            if index < committed.count, committed[index].seq == message.seq { continue }
            let item = item(message)
            pending.removeAll { $0.id == item.id }
            committed.insert(item, at: index)
            changed = true
        }
        if changed { publish() }
    }

    /// Follows an outbox item: a new pending one appears, a failed one shows why, a sent one
    /// gives way to its committed message.
    private func apply(_ outboxItem: OutboxItem) {
        let item = ChatItem(pending: outboxItem, selfId: selfId)
        if case .sent = outboxItem.state {
            pending.removeAll { $0.id == item.id }
        } else if let index = pending.firstIndex(where: { $0.id == item.id }) {
            pending[index] = item
        } else if !committed.contains(where: { $0.id == item.id }) {
            pending.append(item)
        }
        publish()
    }

    private func remove(clientMsgId: String) {
        pending.removeAll { $0.clientMsgId == clientMsgId }
        publish()
    }

    /// Another member read up to `seq`: own messages up to it show as read.
    private func othersRead(upTo seq: Int64) {
        guard seq > othersReadSeq else { return }
        othersReadSeq = seq
        for index in committed.indices where committed[index].delivery == .sent && committed[index].seq! <= seq {
            committed[index].delivery = .read
        }
        publish()
    }

    private func item(_ message: Message) -> ChatItem {
        ChatItem(message: message, selfId: selfId, othersReadSeq: othersReadSeq)
    }

    /// Binary search for the position of `seq` in the committed list.
    private func insertionIndex(for seq: Int64) -> Int {
        var low = 0
        var high = committed.count
        while low < high {
            let middle = (low + high) / 2
            if committed[middle].seq! < seq { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func publish() {
        let current = items
        let changes = ListDiff.changes(from: published, to: current)
        published = current
        guard !changes.isEmpty else { return }
        observers.yield(.changes(changes, items: current))
    }
}

extension OutboxState {
    /// Still shown as the user's own pending message (sending or failed).
    var isPending: Bool {
        if case .sent = self { return false }
        return true
    }
}
