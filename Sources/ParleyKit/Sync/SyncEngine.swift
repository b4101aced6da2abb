import ParleyCore

/// Keeps the ``ClientStore`` up to date with the server (SPEC 3 and 4): sync pages from the
/// stored cursor, hole filling by seq range, older pages on demand, and what the server
/// pushes (messages, receipts, events). Views follow what it stored through ``events()``.
/// Messages others sent that reached this device in direct conversations are acknowledged
/// (`delivered`, coalesced by ``DeliveryAcknowledger``) so their sender sees them delivered.
///
/// Guarantees: a message is stored once per seq whatever mix of pushes, sync pages and
/// range fetches delivers it; the cursor is stored in the same transaction as what it
/// covers. Holes are found from the store (known max seq versus seqs held), not from what
/// a sync reported, so a fill interrupted by a dropped connection resumes on the next sync.
///
/// A group the user left keeps its history up to the removal (``ConversationRemoved/lastSeq``,
/// the notice of it): what the device lacks of it is fetched once, never beyond it, whether
/// the removal came pushed or through a sync (the device may have been away meanwhile).
public actor SyncEngine {
    private let store: ClientStore
    private let session: Session
    private let requests: ServerRequests
    private let sendQueue: SendQueue
    private let acknowledger: DeliveryAcknowledger
    private var subscribers = Subscribers<SyncEvent>()
    /// The fetches of left groups' histories under way, which a second caller waits for.
    private var historyFetches: [ConversationID: Task<Void, any Error>] = [:]
    /// Sync requests under way, and the events pushed while one was: its page may have been
    /// read before they were written, so they are applied again after it (the page would
    /// otherwise put back what they changed, or hold a conversation they found missing).
    private var syncRequestsInFlight = 0
    private var pushedDuringSync: [UserEvent] = []

    init(store: ClientStore, session: Session, requests: ServerRequests, sendQueue: SendQueue) {
        self.store = store
        self.session = session
        self.requests = requests
        self.sendQueue = sendQueue
        acknowledger = DeliveryAcknowledger(requests: requests)
    }

    /// What is stored from now on, in order.
    public func events() -> AsyncStream<SyncEvent> {
        subscribers.add { [weak self] id in Task { await self?.unsubscribe(id) } }
    }

    private func unsubscribe(_ id: Int) { subscribers.remove(id) }

    /// Tells views what a write changed, and acknowledges the messages others sent that
    /// reached this device in direct conversations (and in ones not known yet: the first
    /// message of a new direct conversation may come before it).
    package func deliver(_ changes: StoreChanges) async {
        if !changes.inserted.isEmpty { subscribers.yield(.messages(changes.inserted)) }
        if !changes.updated.isEmpty { subscribers.yield(.updated(changes.updated)) }
        for (id, seqs) in changes.hidden.sorted(by: { $0.key < $1.key }) { subscribers.yield(.hidden(id, seqs: seqs)) }
        let selfId = await session.currentUser?.id
        let received = Dictionary(
            changes.inserted.filter { $0.senderId != selfId }.map { ($0.conversationId, $0.seq) },
            uniquingKeysWith: max)
        for (id, seq) in received where (try? store.conversation(id))??.kind != .group {
            await acknowledger.received(id, upTo: seq)
        }
    }

    /// Brings the store up to date: sync pages from the cursor, then every hole in every
    /// conversation; false when that failed. Failures are left for the next call (the
    /// client makes it a second later, or after the next connection): the stored cursor and
    /// the holes say where to resume, so nothing is lost.
    @discardableResult
    public func resync() async -> Bool {
        do {
            var cursor = try store.value(ClientStore.cursorKey)
            // The conversations summarised so far in this run: their counts of unread mentions
            // already reflect the events of later pages (read before the summary was).
            var summarized: Set<ConversationID> = []
            while true {
                var query: [String: String] = ["limit": "200"]
                query["cursor"] = cursor
                let response: SyncResponse
                let pushed: [UserEvent]
                do {
                    syncRequestsInFlight += 1
                    defer {
                        syncRequestsInFlight -= 1
                        if syncRequestsInFlight == 0 { pushedDuringSync = [] }
                    }
                    response = try await requests(
                        .sync, SyncRequest(cursor: cursor, limit: 200), http: .sync, query: query)
                    pushed = pushedDuringSync
                }
                summarized.formUnion(response.conversations.map(\.id))
                await deliver(try store.applySync(response, summarized: summarized, replaying: pushed))
                for conversation in response.conversations {
                    subscribers.yield(.othersRead(conversation.id, upTo: conversation.othersReadSeq))
                    subscribers.yield(.othersDelivered(conversation.id, upTo: conversation.othersDeliveredSeq))
                }
                cursor = response.cursor
                if !response.hasMore { break }
            }
            for (conversationId, upTo) in try store.conversationsWithHoles() {
                try await fillHoles(in: conversationId, upTo: upTo)
            }
            await acknowledger.flush()
            return true
        } catch {
            // The next call resyncs from the stored cursor; nothing is lost.
            return false
        }
    }

    /// Fetches every seq in `lowest...maxSeq` this device lacks, by range.
    ///
    /// In a conversation the user left, the range is ignored: what the device lacks of its
    /// history up to the removal is fetched, whole, if it was not yet (a fill that completes,
    /// or that the server refuses, is not asked for again); nothing beyond it ever is.
    public func fillHoles(in conversationId: ConversationID, upTo maxSeq: Int64, from lowest: Int64 = 1) async throws {
        if try store.hasLeft(conversationId) { return try await fetchHistoryKept(in: conversationId) }
        guard maxSeq >= lowest else { return }
        try await fetchHoles(in: conversationId, within: lowest...maxSeq)
    }

    /// A left group's history up to the removal, once; a caller who finds it under way
    /// waits for it.
    private func fetchHistoryKept(in conversationId: ConversationID) async throws {
        if let running = historyFetches[conversationId] { return try await running.value }
        guard let lastSeq = try store.historyDue(conversationId) else { return }
        let (store, fetch) = (self.store, Task { try await self.fetchHoles(in: conversationId, within: 1...lastSeq) })
        historyFetches[conversationId] = fetch
        defer { historyFetches[conversationId] = nil }
        do {
            try await fetch.value
        } catch let refusal as ParleyError where refusal.code == .notAMember || refusal.code == .conversationNotFound {
            // The server keeps nothing for them there (the group is gone, or it predates
            // former members): asking again would not change that.
        }
        try store.settleHistoryDue(conversationId, upTo: lastSeq)
    }

    /// Fetches the seqs within `range` the store lacks, by range.
    private func fetchHoles(in conversationId: ConversationID, within range: ClosedRange<Int64>) async throws {
        for hole in try store.holes(in: conversationId, within: range) {
            var after = hole.lowerBound - 1
            while after < hole.upperBound {
                let query = HistoryQuery(
                    conversationId: conversationId, before: hole.upperBound + 1, after: after, limit: Limits.maxPageSize
                )
                let page: HistoryPage = try await requests(
                    .history, query, http: .history, conversationId,
                    query: ["after": "\(after)", "before": "\(hole.upperBound + 1)", "limit": "\(Limits.maxPageSize)"])
                await deliver(try store.saveMessages(page.messages))
                guard let last = page.messages.last else { break }
                after = last.seq
            }
        }
    }

    /// Older messages than `seq` (or the newest): from the store, topped up from the server
    /// when the store has holes there (unless the user left the conversation: what it keeps
    /// is fetched once, by ``fillHoles(in:upTo:from:)``).
    public func messages(in conversationId: ConversationID, before seq: Int64?, limit: Int) async throws -> [Message] {
        let local = try store.messages(in: conversationId, before: seq, limit: limit)
        if try store.hasLeft(conversationId) { return local }
        let upper = (seq ?? Int64.max) - 1
        let lower = max(1, (local.first?.seq ?? (seq ?? 1)) - Int64(limit - local.count))
        let expectedTop = min(upper, try store.conversation(conversationId)?.maxSeq ?? 0)
        if expectedTop >= lower, try !store.holes(in: conversationId, within: lower...expectedTop).isEmpty {
            let page: HistoryPage = try await requests(
                .history, HistoryQuery(conversationId: conversationId, before: seq, limit: limit), http: .history,
                conversationId,
                query: seq.map { ["before": "\($0)", "limit": "\(limit)"] } ?? ["limit": "\(limit)"])
            await deliver(try store.saveMessages(page.messages))
            return try store.messages(in: conversationId, before: seq, limit: limit)
        }
        return local
    }

    /// One frame the server pushed, in arrival order.
    func handlePush(_ frame: IncomingFrame) async {
        switch frame.type {
        case ServerFrameType.message.rawValue:
            guard let message = try? frame.payload(Message.self) else { return }
            let selfId = await session.currentUser?.id
            if message.senderId == selfId { await sendQueue.acknowledge(message) }
            guard let changes = try? store.saveMessages([message]) else { return }
            await deliver(changes)
            if let holes = try? store.holes(in: message.conversationId, within: 1...message.seq), !holes.isEmpty {
                Task { try? await self.fillHoles(in: message.conversationId, upTo: message.seq) }
            }
        case ServerFrameType.event.rawValue:
            guard let event = try? frame.payload(UserEvent.self) else { return }
            if syncRequestsInFlight > 0 { pushedDuringSync.append(event) }
            if let changes = try? store.applyEvent(event) { await deliver(changes) }
            if case .conversationRemoved(let removed) = event.body {
                // Aside, so the push loop never waits on HTTP: what the device lacks up to
                // `lastSeq` (the notice of the removal, if its push was missed).
                Task { try? await self.fillHoles(in: removed.conversationId, upTo: removed.lastSeq) }
            }
            if case .conversationAdded(let added) = event.body {
                let id = added.conversationId
                // Fetched aside so the push loop never waits on HTTP; the next sync reports it too.
                let (session, store) = (self.session, self.store)
                Task {
                    if let detail: ConversationDetail = try? await session.http(.getConversation, id) {
                        try? store.saveDetail(detail)
                    }
                }
            }
        case ServerFrameType.receipt.rawValue:
            guard let receipt = try? frame.payload(ReadReceipt.self) else { return }
            try? store.recordOthersRead(receipt)
            subscribers.yield(.receipt(receipt))
        case ServerFrameType.delivered.rawValue:
            guard let receipt = try? frame.payload(ReadReceipt.self) else { return }
            try? store.recordOthersDelivered(receipt)
            subscribers.yield(.othersDelivered(receipt.conversationId, upTo: receipt.seq))
        default:
            break
        }
    }
}
