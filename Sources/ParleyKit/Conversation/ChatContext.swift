import ParleyCore

/// The single owner of one open conversation's message list (SPEC 4), shared by every view
/// that shows it. It loads from the local store first, then fills holes from the server,
/// merges new messages by binary search (no re-sort), follows its own messages from
/// `sending` to `sent`/`read`/`failed`, and publishes a snapshot followed by batched changes.
///
/// UI-free: views observe ``updates()`` and call its actions; they never edit the list.
public actor ChatContext {
    public nonisolated let conversationId: ConversationID
    private let client: ParleyClient
    private let selfId: UserID
    /// Committed messages in seq order, from the oldest loaded one on.
    private var committed: [ChatItem] = []
    /// Own messages not committed yet, in the order they were queued.
    private var pending: [ChatItem] = []
    private var othersReadSeq: Int64 = 0
    private var published: [ChatItem] = []
    private var observers: [Int: AsyncStream<ChatUpdate>.Continuation] = [:]
    private var nextObserver = 0
    /// Whether older messages may exist before the first loaded one.
    public private(set) var hasOlder = true

    init(conversationId: ConversationID, client: ParleyClient, selfId: UserID) {
        self.conversationId = conversationId
        self.client = client
        self.selfId = selfId
    }

    /// The current list.
    public var items: [ChatItem] { committed + pending }

    /// The list now, then every change to it.
    public func updates() -> AsyncStream<ChatUpdate> {
        let (stream, continuation) = AsyncStream<ChatUpdate>.makeStream()
        let id = nextObserver
        nextObserver += 1
        observers[id] = continuation
        continuation.yield(.snapshot(published))
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
        return stream
    }

    private func removeObserver(_ id: Int) { observers[id] = nil }

    /// Shows the newest page from the store at once, then fills the holes in it from the server.
    public func load(pageSize: Int = 50) async throws {
        let store = client.store
        othersReadSeq = try store.othersReadSeq(conversationId)
        committed = try store.messages(in: conversationId, limit: pageSize).map(item)
        pending = try store.outbox()
            .filter { $0.conversationId == conversationId && $0.state.isPending }
            .map { ChatItem(pending: $0, selfId: selfId) }
        publish()
        if let maxSeq = try store.conversation(conversationId)?.maxSeq, maxSeq > 0 {
            try await client.fillHoles(in: conversationId, upTo: maxSeq, from: max(1, maxSeq - Int64(pageSize) + 1))
        }
        hasOlder = (committed.first?.seq ?? 1) > 1
    }

    /// Loads the page before the oldest message shown; false when there is nothing older.
    @discardableResult
    public func loadOlder(pageSize: Int = 50) async throws -> Bool {
        guard hasOlder else { return false }
        let oldest = committed.first?.seq
        let older = try await client.messages(in: conversationId, before: oldest, limit: pageSize)
        let fresh = older.filter { message in oldest.map { message.seq < $0 } ?? true }
        committed.insert(contentsOf: fresh.map(item), at: 0)
        hasOlder = (committed.first?.seq ?? 1) > 1
        publish()
        return hasOlder
    }

    // MARK: Actions

    /// Sends a text message (shown at once as `sending`).
    @discardableResult
    public func send(text: String) async throws -> String {
        try await client.send(text: text, to: conversationId).clientMsgId
    }

    /// Sends a message of any kind.
    @discardableResult
    public func send(_ kind: MessageKind, content: JSONValue) async throws -> String {
        try await client.send(kind, content, to: conversationId).clientMsgId
    }

    public func resend(_ clientMsgId: String) async throws { try await client.resend(clientMsgId) }

    /// Removes a message from this device only (a failed one is also dropped from the outbox).
    public func deleteLocally(_ item: ChatItem) async throws {
        if let seq = item.seq {
            try client.store.deleteLocalMessage(conversationId, seq: seq)
            committed.removeAll { $0.id == item.id }
            publish()
        } else {
            try await client.cancel(item.clientMsgId)
        }
    }

    /// Marks everything shown as read.
    public func markRead() async throws {
        guard let last = committed.last?.seq else { return }
        try await client.markRead(conversationId, upTo: last)
    }

    // MARK: Fed by the client engine

    /// Merges committed messages (any order, duplicates ignored) into the seq-ordered list.
    func merge(_ messages: [Message]) {
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
    func apply(_ outboxItem: OutboxItem) {
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

    func remove(clientMsgId: String) {
        pending.removeAll { $0.clientMsgId == clientMsgId }
        publish()
    }

    /// Another member read up to `seq`: own messages up to it show as read.
    func othersRead(upTo seq: Int64) {
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
        for observer in observers.values { observer.yield(.changes(changes, items: current)) }
    }
}

extension OutboxState {
    /// Still shown as the user's own pending message (sending or failed).
    var isPending: Bool {
        if case .sent = self { return false }
        return true
    }
}
