import Foundation
import ParleyCore

/// The outbox (SPEC 4): messages the user sent, from the moment they are typed until the
/// server has them. A send returns a ``SendHandle`` at once; observers follow the items
/// through ``updates()`` (a whole queue, for a ``ChatContext``) or ``SendHandle/stateUpdates()``
/// (one item).
///
/// Guarantees: items are sent in the order they were queued, each with its original
/// `clientMsgId`, so a retry after any failure can never duplicate. A single flush loop
/// sends them, over the socket or over HTTP when the socket is down; it stops at the first
/// transport failure, so order holds, and runs again after every (re)connection and once
/// a second while online. An item with a ``SendDependency`` is not sent before it finished,
/// and the items behind it wait. A media item (``send(_:to:)``) uploads its files when its
/// turn comes, reporting ``SendState/uploading(_:)`` as the bytes go; an upload cut off
/// resumes from the server's chunks, in this process or the next. The queue is in the
/// ``ClientStore``, so it survives the process.
public actor SendQueue {
    private let store: ClientStore
    private let requests: ServerRequests
    private let sendTimeout: Duration
    private let wallClock: @Sendable () -> Int64
    private let newClientMsgId: @Sendable () -> String
    private let upload: Uploader
    private var subscribers = Subscribers<SendUpdate>()
    private var watchers: [String: Subscribers<SendState>] = [:]
    /// The last non-final state published per item, so observers see each state once.
    private var published: [String: SendState] = [:]
    /// The item whose request is on its way (the loop sends one at a time).
    private var inFlight: String?
    /// The item whose files are being uploaded, how far, and the upload (to cancel it).
    private var uploading: (clientMsgId: String, progress: TransferProgress, task: Task<FileInfo, any Error>?)?
    private var dependencies: [String: Dependency] = [:]
    /// The flush loop waiting for a dependency, to be resumed when it ends or is cancelled.
    private var waiting: (clientMsgId: String, continuation: CheckedContinuation<DependencyOutcome, Never>)?
    private var flushTask: Task<Void, Never>?
    private var flushRequested = false

    private struct Dependency {
        let work: @Sendable () async throws -> Void
        var attempt = 0
        /// Nil while running.
        var outcome: DependencyOutcome?
    }

    /// Uploads a local file, or finds it on the server by hash (``Files/upload(fileAt:kind:mimeType:name:progress:)``).
    typealias Uploader =
        @Sendable (OutgoingFile, @escaping @Sendable (TransferProgress) -> Void) async throws
        -> FileInfo

    private enum DependencyOutcome {
        case done
        case failed(reason: String, retryable: Bool)
        case cancelled
    }

    init(
        store: ClientStore, requests: ServerRequests, sendTimeout: Duration,
        wallClock: @escaping @Sendable () -> Int64, upload: @escaping Uploader,
        newClientMsgId: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.upload = upload
        self.store = store
        self.requests = requests
        self.sendTimeout = sendTimeout
        self.wallClock = wallClock
        self.newClientMsgId = newClientMsgId
    }

    // MARK: Observing

    /// Every change to every item from now on, in order.
    public func updates() -> AsyncStream<SendUpdate> {
        subscribers.add { [weak self] id in Task { await self?.unsubscribe(id) } }
    }

    private func unsubscribe(_ id: Int) { subscribers.remove(id) }

    /// Where an item stands now (`cancelled` once it is no longer in the queue).
    public func state(of clientMsgId: String) -> SendState {
        state(of: try? store.outboxItem(clientMsgId))
    }

    /// The server's error when it refused an item (``ClientStore/rejection(of:)``).
    public func rejection(of clientMsgId: String) -> ParleyError? {
        try? store.rejection(of: clientMsgId)
    }

    /// An item's state now, then every change; ends after a final state.
    public func stateUpdates(of clientMsgId: String) -> AsyncStream<SendState> {
        let current = state(of: clientMsgId)
        var itemWatchers = watchers[clientMsgId] ?? Subscribers()
        let stream = itemWatchers.add(initial: current) { [weak self] id in
            Task { await self?.unwatch(clientMsgId, id) }
        }
        if current.isFinal { itemWatchers.finish() } else { watchers[clientMsgId] = itemWatchers }
        return stream
    }

    private func unwatch(_ clientMsgId: String, _ id: Int) {
        watchers[clientMsgId]?.remove(id)
        if watchers[clientMsgId]?.isEmpty == true { watchers[clientMsgId] = nil }
    }

    private func state(of item: OutboxItem?) -> SendState {
        guard let item else { return .cancelled }
        switch item.state {
        case .sent(let seq): return .sent(seq: seq)
        case .failed(let reason, let retryable): return .failed(reason: reason, retryable: retryable)
        case .sending:
            if let uploading, uploading.clientMsgId == item.clientMsgId { return .uploading(uploading.progress) }
            return inFlight == item.clientMsgId ? .sending : .queued
        }
    }

    /// Tells observers about an item's new state, once.
    private func publish(_ item: OutboxItem, _ state: SendState? = nil, message: Message? = nil) {
        let id = item.clientMsgId
        let state = state ?? self.state(of: item)
        guard published[id] != state else { return }
        published[id] = state.isFinal ? nil : state
        subscribers.yield(SendUpdate(item: item, state: state, message: message))
        watchers[id]?.yield(state)
        if state.isFinal {
            if var ended = watchers.removeValue(forKey: id) { ended.finish() }
            dependencies[id] = nil
        }
    }

    // MARK: Actions

    /// Queues a message (shown at once as `queued`) and starts sending it; with a
    /// `dependency`, not before that has finished.
    @discardableResult
    public func send(
        _ kind: MessageKind, _ content: JSONValue, to conversationId: ConversationID,
        after dependency: SendDependency? = nil
    ) throws -> SendHandle {
        let item = try store.enqueue(
            clientMsgId: newClientMsgId(), conversationId: conversationId, toUserId: nil, kind: kind,
            content: content, awaitsDependency: dependency != nil, at: wallClock())
        if let dependency {
            dependencies[item.clientMsgId] = Dependency(work: dependency.work)
            startDependency(item.clientMsgId)
        }
        publish(item)
        Task { await self.flush() }
        return SendHandle(clientMsgId: item.clientMsgId, conversationId: conversationId, queue: self)
    }

    /// Queues an image, voice, video or file message made from files on this device. They
    /// are uploaded (or found on the server by hash) when the message's turn comes, then it
    /// is sent; ``SendHandle/stateUpdates()`` reports the upload's progress.
    @discardableResult
    public func send(_ media: OutgoingMedia, to conversationId: ConversationID) throws -> SendHandle {
        let item = try store.enqueue(
            clientMsgId: newClientMsgId(), conversationId: conversationId, toUserId: nil, kind: media.kind,
            content: .object(media.content), files: media.files, at: wallClock())
        publish(item)
        Task { await self.flush() }
        return SendHandle(clientMsgId: item.clientMsgId, conversationId: conversationId, queue: self)
    }

    /// Queues a text message, which may mention users or everyone (`@all`).
    @discardableResult
    public func send(
        text: String, mentions: Mentions = .none, to conversationId: ConversationID,
        after dependency: SendDependency? = nil
    ) throws -> SendHandle {
        try send(.text, OutgoingContent.text(text, mentions: mentions), to: conversationId, after: dependency)
    }

    /// Puts a failed message back in the queue with its original id (running its dependency
    /// again if that is what failed), then flushes.
    public func resend(_ clientMsgId: String) async throws {
        guard case .failed? = try store.outboxItem(clientMsgId)?.state,
            let item = try store.markSending(clientMsgId, at: wallClock())
        else { return }
        if case .failed? = dependencies[clientMsgId]?.outcome { startDependency(clientMsgId) }
        publish(item)
        await flush()
    }

    /// Drops a failed message, one still waiting for its dependency, or one whose files are
    /// not all uploaded (stopping its upload), from the queue. Does nothing to a message
    /// whose request may already have reached the server.
    public func cancel(_ clientMsgId: String) async throws {
        guard let item = try store.outboxItem(clientMsgId) else { return }
        let notSentYet = (dependencies[clientMsgId] != nil || !item.files.isEmpty) && inFlight != clientMsgId
        guard try notSentYet ? store.removeUnsent(clientMsgId) : store.removeFailed(clientMsgId) else { return }
        if waiting?.clientMsgId == clientMsgId { resumeWaiting(with: .cancelled) }
        if uploading?.clientMsgId == clientMsgId { uploading?.task?.cancel() }
        publish(item, .cancelled)
    }

    /// Sends queued items in order until the queue is empty or the server is unreachable.
    /// When a flush is already running, asks it for one more pass and waits for it to end,
    /// so that what was queued before the call has been tried when the call returns (or is
    /// still waiting for its dependency).
    public func flush() async {
        if let running = flushTask {
            flushRequested = true
            await running.value
            return
        }
        let task = Task { await self.drain() }
        flushTask = task
        await task.value
    }

    /// The one running flush: passes over the queue until no further pass was asked for.
    private func drain() async {
        defer { flushTask = nil }
        repeat {
            flushRequested = false
            expireOverdue()
            guard let items = try? store.sendingItems() else { return }
            for item in items {
                let id = item.clientMsgId
                if item.awaitsDependency {
                    switch await dependency(of: id) {
                    case .done:
                        // From here on an ordinary item: once its request is out, it cannot be cancelled.
                        try? store.markDependencyDone(id)
                        dependencies[id] = nil
                    case .failed(let reason, let retryable):
                        if let failed = try? store.markFailed(id, reason: reason, retryable: retryable) {
                            publish(failed)
                        }
                        continue
                    case .cancelled:
                        continue
                    }
                }
                // Cancelled, or acknowledged by a push, while this pass was busy with earlier items.
                guard var current = try? store.outboxItem(id), current.state == .sending else { continue }
                if !current.files.isEmpty {
                    switch await uploadFiles(of: current) {
                    case .uploaded(let ready): current = ready
                    case .settled: continue
                    case .unreachable: return  // keep the order, go on after the next connection
                    }
                }
                inFlight = id
                publish(current)
                do {
                    let response: SendMessageResponse = try await requests(.send, current.request, http: .sendMessage)
                    inFlight = nil
                    try commit(response.message)
                } catch let error as ParleyError where !error.code.isTemporary {
                    inFlight = nil
                    // A push may have acknowledged it meanwhile: a sent item stays sent, and
                    // its `sent` was published once already.
                    if let failed = try? store.markFailed(
                        id, reason: error.message, retryable: false, rejection: error),
                        failed.state.isPending
                    {
                        publish(failed)
                    }
                } catch {
                    inFlight = nil
                    if let current = try? store.outboxItem(id), current.state.isPending { publish(current) }
                    return  // unreachable: keep the order, retry after the next connection
                }
            }
        } while flushRequested
    }

    private enum UploadOutcome {
        /// Every file is on the server: the item, its content complete.
        case uploaded(OutboxItem)
        /// Failed or cancelled: the pass goes on with the next item.
        case settled
        case unreachable
    }

    /// Uploads an item's files one after the other, writing each id into its content as it
    /// is stored on the server. A file the server refuses (too large, a type the kind does
    /// not take, over the quota) or that can no longer be read fails the item for good.
    private func uploadFiles(of item: OutboxItem) async -> UploadOutcome {
        let id = item.clientMsgId
        let sizes = item.files.map { (try? $0.size) ?? 0 }
        let total = sizes.reduce(0, +)
        var before: Int64 = 0
        var current = item
        uploading = (id, TransferProgress(done: 0, total: total), nil)
        defer { uploading = nil }
        publish(current)
        for (file, size) in zip(item.files, sizes) {
            guard FileManager.default.isReadableFile(atPath: file.path) else {
                return fail(id, reason: "The file \(file.name) is no longer on this device.")
            }
            let done = before
            let task = Task { [upload] in
                try await upload(file) { progress in
                    let overall = TransferProgress(done: done + progress.done, total: total)
                    Task { await self.uploadProgressed(id, overall) }
                }
            }
            uploading?.task = task
            do {
                let stored = try await task.value
                guard let updated = try store.markUploaded(id, file: file, as: stored.fileId) else { return .settled }
                current = updated
                before += size
            } catch let error as ParleyError where !error.code.isTemporary {
                return fail(id, reason: error.message, rejection: error)
            } catch {
                guard let still = try? store.outboxItem(id) else { return .settled }  // cancelled
                uploading = nil
                publish(still)
                return .unreachable
            }
        }
        return .uploaded(current)
    }

    private func fail(_ id: String, reason: String, rejection: ParleyError? = nil) -> UploadOutcome {
        uploading = nil
        if let failed = try? store.markFailed(id, reason: reason, retryable: false, rejection: rejection) {
            publish(failed)
        }
        return .settled
    }

    /// Publishes an upload's progress, unless the upload is over or it is older than what was
    /// published (progress travels through tasks, which may arrive late and out of order).
    private func uploadProgressed(_ clientMsgId: String, _ progress: TransferProgress) {
        guard let uploading, uploading.clientMsgId == clientMsgId, progress.done > uploading.progress.done,
            let item = try? store.outboxItem(clientMsgId)
        else { return }
        self.uploading?.progress = progress
        publish(item)
    }

    /// Marks an item committed and stores its message, unless it was already.
    private func commit(_ message: Message) throws {
        guard let before = try store.outboxItem(message.clientMsgId) else { return }
        if case .sent = before.state { return }
        if let sent = try store.markSent(message) { publish(sent, message: message) }
    }

    /// A message of this user pushed by the server: if it is an item still on its way (its
    /// acknowledgement was lost), it is sent.
    func acknowledge(_ message: Message) {
        guard let item = try? store.outboxItem(message.clientMsgId), item.state == .sending, !item.awaitsDependency
        else { return }
        try? commit(message)
    }

    /// Marks items that waited longer than the send timeout as failed (retryable). An item
    /// waiting for its dependency or with files still to upload, and those behind it, are
    /// not overdue: the wait is the dependency's or the upload's, not the network's (an
    /// upload of a large file may take longer than any timeout, and resumes where it was).
    func expireOverdue() {
        let deadline = wallClock() - sendTimeout.milliseconds
        for item in (try? store.sendingItems()) ?? [] {
            if item.awaitsDependency, let dependency = dependencies[item.clientMsgId], dependency.outcome == nil {
                break
            }
            if !item.files.isEmpty { break }
            guard item.createdAt < deadline else { continue }
            if let failed = try? store.markFailed(item.clientMsgId, reason: "Not sent in time.", retryable: true) {
                publish(failed)
            }
        }
    }

    // MARK: Dependencies

    private func startDependency(_ clientMsgId: String) {
        guard var dependency = dependencies[clientMsgId] else { return }
        dependency.attempt += 1
        dependency.outcome = nil
        dependencies[clientMsgId] = dependency
        let (attempt, work) = (dependency.attempt, dependency.work)
        Task {
            let outcome: DependencyOutcome
            do {
                try await work()
                outcome = .done
            } catch let error as ParleyError {
                outcome = .failed(reason: error.message, retryable: error.code.isTemporary)
            } catch {
                outcome = .failed(reason: "\(error)", retryable: true)
            }
            self.dependencyEnded(clientMsgId, attempt: attempt, outcome)
        }
    }

    private func dependencyEnded(_ clientMsgId: String, attempt: Int, _ outcome: DependencyOutcome) {
        guard dependencies[clientMsgId]?.attempt == attempt else { return }
        dependencies[clientMsgId]?.outcome = outcome
        if waiting?.clientMsgId == clientMsgId { resumeWaiting(with: outcome) }
    }

    /// How an item's dependency ended, waiting for it if it is running. An item that should
    /// wait for one this process does not know (queued before a restart) fails.
    private func dependency(of clientMsgId: String) async -> DependencyOutcome {
        guard let dependency = dependencies[clientMsgId] else {
            return .failed(reason: "What it was waiting for was lost when the app stopped.", retryable: false)
        }
        if let outcome = dependency.outcome { return outcome }
        return await withCheckedContinuation { continuation in
            waiting = (clientMsgId, continuation)
        }
    }

    private func resumeWaiting(with outcome: DependencyOutcome) {
        let continuation = waiting?.continuation
        waiting = nil
        continuation?.resume(returning: outcome)
    }
}
