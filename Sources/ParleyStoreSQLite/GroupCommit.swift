import GRDB
import ParleyStore
import Synchronization

/// Commits concurrent appends together (group commit): while one transaction is being
/// written, appends that arrive wait, and all of them (up to `maxBatch`) go into the next
/// transaction, each in its own savepoint so that one rejected append does not fail the
/// others. Every caller is answered only after the transaction holding its message
/// committed, so an acknowledgement still means durable. A lone append is a transaction
/// of one, as before.
final class GroupCommit: Sendable {
    private struct Waiting: Sendable {
        let message: NewMessage
        let continuation: CheckedContinuation<AppendResult, any Error>
    }

    private let maxBatch: Int
    private let state = Mutex<(waiting: [Waiting], writing: Bool)>(([], false))

    init(maxBatch: Int = 256) { self.maxBatch = maxBatch }

    func append(_ message: NewMessage, to store: SQLiteStore) async throws -> AppendResult {
        try await withCheckedThrowingContinuation { continuation in
            let leads = state.withLock { state -> Bool in
                state.waiting.append(Waiting(message: message, continuation: continuation))
                if state.writing { return false }
                state.writing = true
                return true
            }
            if leads { Task { await self.drain(into: store) } }
        }
    }

    /// Writes batches until nobody is waiting.
    private func drain(into store: SQLiteStore) async {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                let batch = Array(state.waiting.prefix(maxBatch))
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                let results = try await store.pool.write { db in
                    batch.map { waiting in
                        Result { try store.inSavepointPublishingOnCommit(db) { try store.append(db, waiting.message) } }
                    }
                }
                for (waiting, result) in zip(batch, results) { waiting.continuation.resume(with: result) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
    }
}
