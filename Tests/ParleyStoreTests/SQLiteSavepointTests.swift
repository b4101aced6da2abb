import GRDB
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
}
