import GRDB
import ParleyStore
import Synchronization

/// Commits concurrent writes together (group commit): while one transaction is being
/// written, writes that arrive wait, and all of them (up to `maxBatch`) go into the next
/// transaction, each in its own savepoint so that one rejected write does not fail the
/// others. Every caller is answered only after the transaction holding its write
/// committed, so an acknowledgement still means durable. A lone write is a transaction of
/// one. Sends, read and delivery marks, and a login's session and security-log entry go
/// through it: they are the writes that come many at a time (a mark for every message each
/// member's device receives; every client logging in again after a restart).
///
/// While writers are concurrent (the transaction just committed held more than one write),
/// the next one waits `delay` first, so that it gathers more writes and the disk syncs
/// once for all of them: PostgreSQL's `commit_delay` with `commit_siblings`. A write waits
/// only when the transaction before it held more than one write and its batch is not yet
/// full, so a quiet server answers as fast as its disk syncs.
final class GroupCommit: Sendable {
    private struct Waiting: Sendable {
        /// Runs the write in its savepoint and keeps its outcome.
        let write: @Sendable (Database) -> Void
        /// Answers the caller once the transaction ended: with the write's own error if it
        /// failed, with its value if the transaction committed, else with the commit's error.
        /// An own error was decided after the batch's earlier writes, which a failed commit
        /// undid too; no rule of a send, a mark, a session or a security-log entry depends on
        /// another write of its batch.
        let answer: @Sendable ((any Error)?) -> Void
    }

    private let maxBatch: Int
    private let delay: Duration
    /// Waits out `delay` (a test holds it open instead).
    private let pause: @Sendable (Duration) async -> Void
    private let state = Mutex<(waiting: [Waiting], writing: Bool)>(([], false))

    init(
        maxBatch: Int = 256, delay: Duration = .zero,
        pause: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }
    ) {
        self.maxBatch = maxBatch
        self.delay = delay
        self.pause = pause
    }

    /// How many writes wait for the next transaction.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `body` in the next transaction, in a savepoint of its own, and answers once that
    /// transaction committed.
    func write<T: Sendable>(to store: SQLiteStore, _ body: @escaping @Sendable (Database) throws -> T)
        async throws -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = Outcome<T>()
            let waiting = Waiting(
                write: { db in
                    let result = Result { try store.inSavepointPublishingOnCommit(db) { try body(db) } }
                    outcome.result.withLock { $0 = result }
                },
                answer: { commitError in
                    switch (outcome.result.withLock { $0 }, commitError) {
                    case (.failure(let error)?, _): continuation.resume(throwing: error)
                    case (let result?, nil): continuation.resume(with: result)
                    case (_, let commitError?): continuation.resume(throwing: commitError)
                    case (nil, nil): preconditionFailure("a committed write has an outcome")
                    }
                })
            let leads = state.withLock { state -> Bool in
                state.waiting.append(waiting)
                if state.writing { return false }
                state.writing = true
                return true
            }
            if leads { Task { await self.drain(into: store) } }
        }
    }

    /// Writes batches until nobody is waiting, pausing before each while writers are
    /// concurrent and the next batch is not yet full.
    private func drain(into store: SQLiteStore) async {
        var concurrent = false
        while true {
            if concurrent && delay > .zero && waitingCount < maxBatch { await pause(delay) }
            let batch = state.withLock { state -> [Waiting] in
                let batch = Array(state.waiting.prefix(maxBatch))
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            concurrent = batch.count > 1
            do {
                try await store.write { db in
                    for waiting in batch { waiting.write(db) }
                }
                for waiting in batch { waiting.answer(nil) }
            } catch {
                for waiting in batch { waiting.answer(error) }
            }
        }
    }
}

/// What one write in a batch came to, kept until its transaction ends.
private final class Outcome<T: Sendable>: Sendable {
    let result = Mutex<Result<T, any Error>?>(nil)
}
