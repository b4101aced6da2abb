import GRDB
import Dispatch
import GRDBSQLite
import ParleyCore
import ParleyStore
import ParleyTesting
import Synchronization
import Testing

@testable import ParleyStoreSQLite

/// Group commit runs each append in a savepoint of a shared transaction: what a rejected
/// append published must never reach subscribers, what the others published must.
struct SQLiteSavepointTests {
    struct Rejected: Error {}

    @Test func changesPublishedInARolledBackSavepointAreDropped() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/savepoints.sqlite")
        let published = Mutex<[SessionID]>([])
        store.fanOut.subscribe { item in
            if case .stored(.sessionRevoked(let id)) = item { published.withLock { $0.append(id) } }
        }
        try await store.pool.write { db in
            #expect(throws: Rejected.self) {
                try store.inSavepointPublishingOnCommit(db) {
                    store.publishAfterCommit(db, .sessionRevoked(SessionID(1)))
                    throw Rejected()
                }
            }
            try store.inSavepointPublishingOnCommit(db) { store.publishAfterCommit(db, .sessionRevoked(SessionID(2))) }
            store.publishAfterCommit(db, .sessionRevoked(SessionID(3)))
        }
        #expect(published.withLock { $0 } == [SessionID(2), SessionID(3)])
        try store.close()
    }

    /// A rejected write's rows are rolled back, and the writes before and after it in the
    /// same transaction keep theirs.
    @Test func aRejectedWritesRowsAreRolledBackAndTheOthersKept() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/savepoint-rows.sqlite")
        try await store.pool.write { db in try db.execute(sql: "CREATE TABLE probe (n INTEGER NOT NULL)") }
        try await store.pool.write { db in
            for n in 1...6 {
                let insert = { try db.execute(sql: "INSERT INTO probe (n) VALUES (?)", arguments: [n]) }
                if n.isMultiple(of: 3) {
                    #expect(throws: Rejected.self) {
                        try store.inSavepointPublishingOnCommit(db) {
                            try insert()
                            throw Rejected()
                        }
                    }
                } else {
                    try store.inSavepointPublishingOnCommit(db) { try insert() }
                }
            }
            #expect(db.isInsideTransaction, "the batch's transaction goes on")
        }
        let kept = try await store.pool.read { db in try Int.fetchAll(db, sql: "SELECT n FROM probe ORDER BY n") }
        #expect(kept == [1, 2, 4, 5])
        try store.close()
    }

    /// The actions a transaction registers run once, in order, when it commits; those of a
    /// transaction that rolled back never run, not even with the next transaction's.
    @Test func actionsForTheCommitRunInOrderAndNotAfterARollback() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/commit-actions.sqlite")
        let published = Mutex<[SessionID]>([])
        store.fanOut.subscribe { item in
            if case .stored(.sessionRevoked(let id)) = item { published.withLock { $0.append(id) } }
        }
        await #expect(throws: Rejected.self) {
            try await store.pool.write { db in
                store.publishAfterCommit(db, .sessionRevoked(SessionID(99)))
                throw Rejected()
            }
        }
        try await store.pool.write { db in
            for id in 1...50 { store.publishAfterCommit(db, .sessionRevoked(SessionID(Int64(id)))) }
            try store.inSavepointPublishingOnCommit(db) { store.publishAfterCommit(db, .sessionRevoked(SessionID(51))) }
            store.publishAfterCommit(db, .sessionRevoked(SessionID(52)))
        }
        try await store.pool.write { db in store.publishAfterCommit(db, .sessionRevoked(SessionID(53))) }
        #expect(published.withLock { $0 } == (1...53).map { SessionID(Int64($0)) })
        try store.close()
    }

    /// A savepoint's journal past 64 KiB would go to a temporary file, a `pwrite` per page
    /// (every first message of a batch writes more than that): the writer keeps it in memory.
    /// Readers, which write no journal, keep SQLite's default.
    @Test func theWriterKeepsSavepointJournalsInMemory() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/temp-store.sqlite")
        let memory = 2
        #expect(try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") } == memory)
        #expect(try await store.pool.read { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") } == 0)
        try store.close()
    }

    /// Opens a store whose writer has a `probe` table and an `abort_transaction()` function:
    /// inserting a row that calls it interrupts the statement, and SQLite then rolls the whole
    /// transaction back by itself, as it does on a full disk or an I/O error.
    private func storeThatCanAbort(_ name: String) async throws -> SQLiteStore {
        let store = try SQLiteStore(path: temporaryDirectory() + "/\(name).sqlite")
        try await store.pool.writeWithoutTransaction { db in
            nonisolated(unsafe) let connection = db.sqliteConnection
            db.add(
                function: DatabaseFunction("abort_transaction", argumentCount: 0, pure: false) { _ in
                    sqlite3_interrupt(connection)
                    return 0
                })
            try db.execute(sql: "CREATE TABLE probe (n INTEGER)")
        }
        return store
    }

    /// Runs an INSERT that interrupts itself (SQLite checks between rows), through GRDB or
    /// straight on the cached statement (`Database.run`, as sends do).
    private static func abortingInsert(_ db: Database, direct: Bool) throws {
        let sql = "INSERT INTO probe (n) SELECT abort_transaction() FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3)"
        if direct { try db.run(sql) } else { try db.execute(sql: sql) }
    }

    /// When SQLite rolls a transaction back by itself, GRDB tells no observer: what the
    /// transaction registered for its commit must not run with the next one's.
    @Test(arguments: [false, true]) func actionsOfATransactionSQLiteAbortedNeverRun(direct: Bool) async throws {
        let store = try await storeThatCanAbort("aborted-actions-\(direct)")
        let published = Mutex<[SessionID]>([])
        store.fanOut.subscribe { item in
            if case .stored(.sessionRevoked(let id)) = item { published.withLock { $0.append(id) } }
        }
        let error = await #expect(throws: DatabaseError.self) {
            try await store.write { db in
                store.publishAfterCommit(db, .sessionRevoked(SessionID(1)))
                do {
                    try Self.abortingInsert(db, direct: direct)
                } catch {
                    #expect(!db.isInsideTransaction, "SQLite itself ended the transaction")
                    throw error
                }
            }
        }
        #expect(error?.resultCode == .SQLITE_INTERRUPT)
        try await store.write { db in store.publishAfterCommit(db, .sessionRevoked(SessionID(2))) }
        #expect(published.withLock { $0 } == [SessionID(2)])
        let rows = try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM probe") }
        #expect(rows == 0)
        try store.close()
    }

    /// A batch of group commit whose transaction SQLite aborted in its second write: both
    /// writes are answered with an error (the second with its own), and neither publishes
    /// anything, then or later.
    @Test(arguments: [false, true])
    func aBatchSQLiteAbortedAnswersEveryWriteWithTheErrorAndPublishesNothing(direct: Bool) async throws {
        let store = try await storeThatCanAbort("aborted-batch-\(direct)")
        let published = Mutex<[SessionID]>([])
        store.fanOut.subscribe { item in
            if case .stored(.sessionRevoked(let id)) = item { published.withLock { $0.append(id) } }
        }
        // The first batch holds the writer until the next two wait together.
        let holding = Mutex(false)
        let release = DispatchSemaphore(value: 0)
        let first = Task {
            try await store.groupCommit.write(to: store) { db in
                holding.withLock { $0 = true }
                release.wait()
            }
        }
        try await eventually { holding.withLock { $0 } }
        let kept = Task {
            try await store.groupCommit.write(to: store) { db in
                store.publishAfterCommit(db, .sessionRevoked(SessionID(1)))
                try db.execute(sql: "INSERT INTO probe (n) VALUES (1)")
            }
        }
        try await eventually { store.groupCommit.waitingCount == 1 }
        let aborting = Task {
            try await store.groupCommit.write(to: store) { db in
                store.publishAfterCommit(db, .sessionRevoked(SessionID(2)))
                try Self.abortingInsert(db, direct: direct)
            }
        }
        try await eventually { store.groupCommit.waitingCount == 2 }
        release.signal()
        try await first.value
        // The write that failed says why; the one it took down with it, that its
        // transaction was aborted.
        let keptError = await #expect(throws: DatabaseError.self) { try await kept.value }
        let abortingError = await #expect(throws: DatabaseError.self) { try await aborting.value }
        #expect(keptError?.resultCode == .SQLITE_ABORT)
        #expect(abortingError?.resultCode == .SQLITE_INTERRUPT)
        try await store.groupCommit.write(to: store) { db in store.publishAfterCommit(db, .sessionRevoked(SessionID(3))) }
        #expect(published.withLock { $0 } == [SessionID(3)])
        let rows = try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM probe") }
        #expect(rows == 0)
        try store.close()
    }

    /// `--sync full` fsyncs every commit: the writer, the one connection that commits, runs
    /// with `synchronous = FULL` (2), and `--sync normal` with NORMAL (1). GRDB sets NORMAL
    /// on the writer when it turns WAL on, after the store's own setup of each connection.
    @Test(arguments: SQLiteStore.Durability.allCases)
    func theWriterCommitsWithTheDurabilityAskedFor(durability: SQLiteStore.Durability) async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/synchronous.sqlite", durability: durability)
        let synchronous = try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(synchronous == (durability == .full ? 2 : 1))
        try store.close()
    }
}
