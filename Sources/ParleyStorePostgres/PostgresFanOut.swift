import Foundation
import Logging
import ParleyCore
import ParleyStore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The fan-out between nodes on one PostgreSQL: LISTEN/NOTIFY on the store's channel.
///
/// Committed changes arrive as the NOTIFYs the store's write transactions send (ids only;
/// PostgreSQL delivers them at commit, in commit order, to every node, the writing one
/// included); the fan-out loads what they name, on a connection of its own, and hands it to
/// its subscribers. (From the store's pool, each load would wait behind every write queued
/// for a connection: a node taking more sends than it can store would all but stop
/// delivering.) Signals are sent as NOTIFYs of their own, outside any transaction, and never
/// touch a table.
///
/// ``start(store:)`` opens the LISTEN and loading connections before the node serves
/// anything, and fails (so the node does not start) when it cannot; they are then kept open,
/// and after losing either the fan-out publishes ``StoreChange/resyncRequired`` once it
/// listens again, because changes may have been missed. As a service it runs until the
/// service group shuts down, and then closes them.
public final class PostgresFanOut: FanOut, Service {
    let store: PostgresStore
    private let local = LocalFanOut()
    /// How the first LISTEN went (nil: not yet), and who waits for it.
    private let firstListen = Mutex<
        (outcome: Result<Void, any Error>?, waiters: [CheckedContinuation<Void, any Error>])
    >(
        (nil, []))
    private let listening = Mutex<Task<Void, Never>?>(nil)

    private init(store: PostgresStore) {
        self.store = store
    }

    /// A fan-out that listens on `store`'s channel; throws `unavailable`, with what
    /// PostgreSQL said, when the LISTEN connection cannot be opened.
    public static func start(store: PostgresStore) async throws -> PostgresFanOut {
        let fanOut = PostgresFanOut(store: store)
        fanOut.listening.withLock { $0 = Task { await fanOut.listen() } }
        do {
            try await fanOut.ready()
        } catch {
            fanOut.stop()
            throw error
        }
        return fanOut
    }

    /// Closes the LISTEN connection; nothing is heard after this.
    public func stop() {
        listening.withLock { $0 }?.cancel()
    }

    public func subscribe(_ subscriber: @escaping @Sendable (FanOutItem) -> Void) {
        local.subscribe(subscriber)
    }

    /// One NOTIFY per ``Signal/recipientsPerNote`` recipients, so that each stays within
    /// PostgreSQL's 8,000 bytes whatever the group's size.
    public func send(_ signal: Signal) async throws {
        try signal.validate()
        let notes = try stride(from: 0, to: max(signal.recipients.count, 1), by: Signal.recipientsPerNote).map {
            var part = signal
            part.recipients = Array(signal.recipients[$0..<min($0 + Signal.recipientsPerNote, signal.recipients.count)])
            return try JSONText.encode(ChangeNote(signal: part))
        }
        let store = self.store
        try await store.plain { connection in
            for note in notes {
                try await connection.rows(
                    "SELECT pg_notify($1, $2)", [.text(store.channel), .text(note)], logger: store.logger)
            }
        }
    }

    public func ready() async throws {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = firstListen.withLock { state -> Result<Void, any Error>? in
                if state.outcome == nil { state.waiters.append(continuation) }
                return state.outcome
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Keeps listening until the service group shuts down, then stops.
    public func run() async throws {
        try? await gracefulShutdown()
        stop()
        await listening.withLock { $0 }?.value
    }

    private func listen() async {
        let logger = store.logger
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: store.configuration(for: .listen), id: 1, logger: logger)
                defer { Task { try? await connection.close() } }
                let loader = LoadingConnection(
                    try await PostgresConnection.connect(
                        configuration: store.configuration(for: .load), id: 2, logger: logger))
                defer { Task { try? await loader.connection.close() } }
                // A lost loading connection ends the LISTEN at once, not at the next change.
                loader.connection.closeFuture.whenComplete { _ in connection.close().whenComplete { _ in } }
                try await connection.listen(on: store.channel) { notifications in
                    if !settleFirstListen(.success(())) { local.deliver(.stored(.resyncRequired)) }
                    for try await notification in notifications {
                        try await deliver(notification.payload, loadingOn: loader)
                    }
                }
            } catch {
                if Task.isCancelled { break }
                let failure = ParleyError(
                    .unavailable, "PostgreSQL cannot be listened to: \(PostgresStore.explain(error))")
                if settleFirstListen(.failure(failure)) { return }
                logger.warning(
                    "Stopped hearing changes (the LISTEN or loading connection failed); clients will resync",
                    metadata: ["error": "\(PostgresStore.explain(error))"])
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        settleFirstListen(.failure(CancellationError()))
    }

    /// Records how the first LISTEN went and wakes ``ready()``'s callers; answers false when
    /// it had already been recorded (this is a later LISTEN).
    @discardableResult
    private func settleFirstListen(_ outcome: Result<Void, any Error>) -> Bool {
        let waiters = firstListen.withLock { state -> [CheckedContinuation<Void, any Error>]? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters ?? [] { waiter.resume(with: outcome) }
        return waiters != nil
    }

    /// Turns one NOTIFY into what the subscribers get (called in notification order). A
    /// change that cannot be loaded ends the listening, which starts again with a resync.
    private func deliver(_ payload: String, loadingOn loader: LoadingConnection) async throws {
        guard let note = try? JSONText.decode(ChangeNote.self, from: payload) else { return }
        if let signal = note.signal {
            local.deliver(.signal(signal))
            return
        }
        for change in try await store.changes(for: note, on: loader) { local.deliver(.stored(change)) }
    }
}
