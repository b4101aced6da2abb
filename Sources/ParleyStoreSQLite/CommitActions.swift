import GRDB
import Synchronization

/// What the writer's current transaction runs once it commits (the fan-out of its changes,
/// member lists for the cache), in the order registered; dropped if it rolls back, and what a
/// savepoint of ``inSavepoint(_:_:)`` registered is dropped if that savepoint rolls back
/// (GRDB's commit hooks do not see savepoints).
///
/// It observes the transaction it holds actions for, registered with the first of them: GRDB
/// asks every observer about every statement, so an observer per action made a batch of n
/// sends cost n² questions. After a transaction SQLite aborted by itself GRDB tells no
/// observer, so the store then calls ``drop(from:)``, which also unregisters it; otherwise
/// it would stay registered, one more for every failed transaction. Only the writer touches
/// it, one transaction at a time.
final class CommitActions: TransactionObserver, Sendable {
    private struct State {
        /// The current transaction's actions; nil while this is not registered for one.
        var pending: [@Sendable () -> Void]?
        /// The actions of the savepoint running, until it is kept; nil outside one.
        var held: [@Sendable () -> Void]?

        /// Adds to the transaction's actions; true when this must now observe it.
        mutating func addPending(_ actions: [@Sendable () -> Void]) -> Bool {
            guard pending != nil else {
                pending = actions
                return true
            }
            pending?.append(contentsOf: actions)
            return false
        }
    }

    private let state = Mutex(State())

    /// Adds an action for the commit of `db`'s current transaction (held with its savepoint's
    /// while one of ``inSavepoint(_:_:)`` runs).
    func add(_ action: @escaping @Sendable () -> Void, in db: Database) {
        let first = state.withLock { state -> Bool in
            guard state.held == nil else {
                state.held?.append(action)
                return false
            }
            return state.addPending([action])
        }
        if first { observe(db) }
    }

    /// Runs `body` in a savepoint of `db`; what it adds runs at the commit only if the
    /// savepoint was kept. Not nested: an inner one would drop the outer one's actions.
    func inSavepoint<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        state.withLock { state in
            precondition(state.held == nil, "CommitActions.inSavepoint is not reentrant")
            state.held = []
        }
        var value: T?
        do {
            try db.inSavepoint {
                value = try body()
                return .commit
            }
        } catch {
            state.withLock { $0.held = nil }
            throw error
        }
        let first = state.withLock { state -> Bool in
            defer { state.held = nil }
            guard let kept = state.held, !kept.isEmpty else { return false }
            return state.addPending(kept)
        }
        if first { observe(db) }
        return value!
    }

    /// Drops the current transaction's actions and stops observing it: it ended without a
    /// commit.
    func drop(from db: Database) {
        let registered = state.withLock { state in
            defer { state.pending = nil }
            return state.pending != nil
        }
        if registered { db.remove(transactionObserver: self) }
    }

    private func observe(_ db: Database) { db.add(transactionObserver: self, extent: .nextTransaction) }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseDidCommit(_ db: Database) {
        let actions = state.withLock { state in
            defer { state.pending = nil }
            return state.pending ?? []
        }
        for action in actions { action() }
    }

    func databaseDidRollback(_ db: Database) { state.withLock { $0.pending = nil } }
}
