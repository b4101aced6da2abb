import ParleyCore
import Synchronization

/// The single owner of one open conversation's message list (SPEC 4), shared by every view
/// that shows it. It loads from the local store first, then fills holes from the server,
/// merges new messages by binary search (no re-sort), follows its own messages from
/// `sending` to `sent`/`delivered`/`read`/`failed`, replaces messages recalled or edited,
/// drops those the user deleted or cleared, and publishes a snapshot followed by batched
/// changes.
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
    /// How far the user's own messages got.
    private var receipts = Receipts()
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
        receipts.othersReadSeq = try store.othersReadSeq(conversationId)
        receipts.othersDeliveredSeq = try store.othersDeliveredSeq(conversationId)
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

    /// Sends a text message (shown at once as `sending`), which may mention users or everyone
    /// (`@all`: a group's owner and admins only); with a `dependency`, not before it finished.
    @discardableResult
    public func send(text: String, mentions: Mentions = .none, after dependency: SendDependency? = nil) async throws
        -> SendHandle
    {
        showQueued(
            try await conversations.sendQueue.send(
                text: text, mentions: mentions, to: conversationId, after: dependency))
    }

    /// Sends a reply that quotes a committed message of this conversation (through the outbox,
    /// like any text).
    @discardableResult
    public func sendReply(_ text: String, to item: ChatItem, mentions: Mentions = .none) async throws -> SendHandle {
        let target = try message(of: item)
        return try await send(.reply, content: OutgoingContent.reply(text, to: target.id, mentions: mentions))
    }

    /// Sends a message of any kind.
    @discardableResult
    public func send(_ kind: MessageKind, content: JSONValue, after dependency: SendDependency? = nil) async throws
        -> SendHandle
    {
        showQueued(try await conversations.sendQueue.send(kind, content, to: conversationId, after: dependency))
    }

    /// Sends an image, voice, video or file message made from files on this device: shown at
    /// once (``ChatItem/localFiles``), its files uploaded with progress
    /// (``ChatItem/Delivery/uploading(_:)``), then sent.
    @discardableResult
    public func send(_ media: OutgoingMedia) async throws -> SendHandle {
        showQueued(try await conversations.sendQueue.send(media, to: conversationId))
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

    /// Recalls a message for everyone (see ``MessageActions/recall(_:)``).
    public func recall(_ item: ChatItem) async throws {
        try await conversations.messages.recall(message(of: item))
    }

    /// Replaces the text of one of the user's own texts or replies (``MessageActions/edit(_:text:)``).
    public func edit(_ item: ChatItem, text: String) async throws {
        try await conversations.messages.edit(message(of: item), text: text)
    }

    /// Forwards messages to other conversations (``MessageActions/forward(_:to:)``).
    @discardableResult
    public func forward(_ items: [ChatItem], to conversationIds: [ConversationID]) async throws -> [Message] {
        try await conversations.messages.forward(items.map(message(of:)), to: conversationIds)
    }

    /// Deletes messages for the user on all their devices; one still in the outbox is
    /// dropped from it instead.
    public func delete(_ items: [ChatItem]) async throws {
        for item in items where !item.isCommitted { try await deleteLocally(item) }
        let committed = try items.filter(\.isCommitted).map(message(of:))
        if !committed.isEmpty { try await conversations.messages.delete(committed) }
    }

    /// Fetches every member's read watermark, so that the user's own messages show how many
    /// read them (``ChatItem/readBy``); `receipt` frames keep it current from then on.
    public func loadReceipts() async throws {
        receipts.members = try await conversations.messages.receipts(in: conversationId)
        restamp()
    }

    /// The committed message an item shows, as the store holds it.
    private func message(of item: ChatItem) throws -> Message {
        guard let seq = item.seq, item.isCommitted,
            let message = try conversations.store.message(in: conversationId, seq: seq)
        else { throw ParleyError(.messageNotFound, "That message is not sent yet, or no longer here.") }
        return message
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
        case .updated(let messages):
            replace(messages.filter { $0.conversationId == conversationId })
        case .hidden(let id, let seqs) where id == conversationId:
            let hidden = Set(seqs)
            committed.removeAll { $0.seq.map(hidden.contains) ?? false }
            publish()
        case .othersRead(let id, let seq) where id == conversationId && seq > receipts.othersReadSeq:
            receipts.othersReadSeq = seq
            restamp()
        case .receipt(let receipt) where receipt.conversationId == conversationId:
            receipts.read(receipt)
            restamp()
        case .othersDelivered(let id, let seq) where id == conversationId && seq > receipts.othersDeliveredSeq:
            receipts.othersDeliveredSeq = seq
            restamp()
        case .hidden, .othersRead, .receipt, .othersDelivered:
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
        case .uploading(let progress):
            apply(update.item, delivery: .uploading(progress))
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

    /// Replaces held items by the newer forms of their messages.
    private func replace(_ messages: [Message]) {
        for message in messages {
            let index = insertionIndex(for: message.seq)
            guard index < committed.count, committed[index].seq == message.seq else { continue }
            committed[index] = item(message)
        }
        publish()
    }

    /// Follows an outbox item: a new pending one appears, a failed one shows why, a sent one
    /// gives way to its committed message.
    private func apply(_ outboxItem: OutboxItem, delivery: ChatItem.Delivery? = nil) {
        var item = ChatItem(pending: outboxItem, selfId: selfId)
        if let delivery { item.delivery = delivery }
        if case .reply(_, let target, _) = item.typedContent,
            let quoted = try? conversations.store.message(withId: target, in: conversationId)
        {
            item.quote = MessageQuote(of: quoted)
        }
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

    /// The receipts changed: own messages show how far they got now.
    private func restamp() {
        for index in committed.indices where committed[index].senderId == selfId {
            guard let seq = committed[index].seq else { continue }
            committed[index].delivery = receipts.delivery(of: seq)
            committed[index].readBy = receipts.readBy(seq, sentBy: selfId)
        }
        publish()
    }

    private func item(_ message: Message) -> ChatItem {
        let kept =
            message.isRecalled && message.senderId == selfId
            ? try? conversations.store.recalledText(in: conversationId, seq: message.seq) : nil
        return ChatItem(message: message, selfId: selfId, receipts: receipts, recalledText: kept)
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
