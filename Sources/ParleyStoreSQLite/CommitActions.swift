import GRDB
import Synchronization

/// What the writer's current transaction runs once it commits (the fan-out of its changes,
/// member lists for the cache), in the order registered; dropped if it rolls back.
///
/// It observes the transaction it holds actions for, registered with the first of them: GRDB
/// asks every observer about every statement, so an observer per action made a batch of n
/// sends cost n² questions. After a transaction SQLite aborted by itself GRDB tells no
/// observer, so the store then calls ``drop(from:)``, which also unregisters it; otherwise
/// it would stay registered, one more for every failed transaction. Only the writer touches
/// it, one transaction at a time.
final class CommitActions: TransactionObserver, Sendable {
    /// The current transaction's actions; nil while it is not registered for one.
    private let pending = Mutex<[@Sendable () -> Void]?>(nil)

    /// Adds actions for the commit of `db`'s current transaction.
    func add(_ actions: [@Sendable () -> Void], in db: Database) {
        let first = pending.withLock { pending -> Bool in
            guard pending != nil else {
                pending = actions
                return true
            }
            pending?.append(contentsOf: actions)
            return false
        }
        if first { db.add(transactionObserver: self, extent: .nextTransaction) }
    }

    /// Drops the current transaction's actions and stops observing it: it ended without a
    /// commit.
    func drop(from db: Database) {
        let registered = pending.withLock { pending in
            defer { pending = nil }
            return pending != nil
        }
        if registered { db.remove(transactionObserver: self) }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseDidCommit(_ db: Database) {
        let actions = pending.withLock { pending in
            defer { pending = nil }
            return pending ?? []
        }
        for action in actions { action() }
    }

    func databaseDidRollback(_ db: Database) { pending.withLock { $0 = nil } }
}
