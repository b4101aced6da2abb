import GRDB
import Synchronization

/// What the writer's current transaction runs once it commits (the fan-out of its changes,
/// member lists for the cache), in the order registered; dropped if it rolls back.
///
/// One observer, registered on the writer for the store's life: GRDB asks every observer
/// about every statement, so an observer per action made a batch of n sends cost n²
/// questions, and one per transaction stayed registered after each transaction SQLite
/// aborted by itself (GRDB then tells no observer), piling up for as long as writes failed.
/// Only the writer touches it, one transaction at a time.
final class CommitActions: TransactionObserver, Sendable {
    private let pending = Mutex<[@Sendable () -> Void]>([])

    /// Adds actions for the current transaction's commit.
    func add(_ actions: [@Sendable () -> Void]) { pending.withLock { $0.append(contentsOf: actions) } }

    /// Drops the current transaction's actions: it ended without committing.
    func drop() { pending.withLock { $0.removeAll() } }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseDidCommit(_ db: Database) {
        let actions = pending.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        for action in actions { action() }
    }

    func databaseDidRollback(_ db: Database) { drop() }
}
