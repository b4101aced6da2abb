import GRDB
import ParleyTesting
import Testing

@testable import ParleyStoreSQLite

/// `Database.run` and `Database.first` bind and step the cached statement themselves, past
/// GRDB's arguments and bookkeeping: they must bind every kind of value the stores pass,
/// fail like GRDB with the statement still usable, and never write outside a transaction.
struct SQLiteDirectStatementTests {
    private func store(_ name: String) async throws -> SQLiteStore {
        let store = try SQLiteStore(path: temporaryDirectory() + "/\(name).sqlite")
        try await store.pool.write { db in
            try db.execute(sql: "CREATE TABLE probe (n INTEGER PRIMARY KEY, s TEXT, b INTEGER, o INTEGER)")
        }
        return store
    }

    @Test func valuesAreBoundInOrderAndReadBackByColumn() async throws {
        let store = try await store("direct-values")
        let text = "naïve \"quoted\" 汉字 🙂, with a NUL\u{0}after"
        let row = try await store.pool.write { db in
            try db.run("INSERT INTO probe (n, s, b, o) VALUES (?, ?, ?, ?)", [Int64(7), text, true, Int64?.none])
            return try db.first("SELECT s, b, o, n FROM probe WHERE n = ?", [Int64(7)]) { columns in
                (try columns[0] as String, try columns[1] as Bool, try columns[2] as Int64?, try columns[3] as Int64)
            }
        }
        // GRDB reads text up to its first NUL, as it binds it.
        #expect(row?.0 == "naïve \"quoted\" 汉字 🙂, with a NUL")
        #expect(row?.1 == true && row?.2 == nil && row?.3 == 7)
        let none = try await store.pool.read { db in
            try db.first("SELECT n FROM probe WHERE n = ?", [Int64(8)]) { try $0[0] as Int64 }
        }
        #expect(none == nil)
        try store.close()
    }

    /// A statement with RETURNING made its change by its first row; the rest are not read.
    @Test func aReturningStatementChangesEveryRowAndAnswersTheFirst() async throws {
        let store = try await store("direct-returning")
        let (first, count) = try await store.pool.write { db in
            for n in 1...3 { try db.run("INSERT INTO probe (n, b) VALUES (?, 0)", [Int64(n)]) }
            let first = try db.first("UPDATE probe SET b = b + 1 RETURNING n", []) { try $0[0] as Int64 }
            return (first, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM probe WHERE b = 1"))
        }
        #expect(first != nil)
        #expect(count == 3)
        try store.close()
    }

    @Test func aFailedStatementThrowsGRDBsErrorAndRunsAgain() async throws {
        let store = try await store("direct-failure")
        try await store.pool.write { db in
            try db.run("INSERT INTO probe (n) VALUES (?)", [Int64(1)])
            let error = #expect(throws: DatabaseError.self) {
                try db.run("INSERT INTO probe (n) VALUES (?)", [Int64(1)])
            }
            #expect(error?.resultCode == .SQLITE_CONSTRAINT)
            #expect(error?.sql == "INSERT INTO probe (n) VALUES (?)")
            try db.run("INSERT INTO probe (n) VALUES (?)", [Int64(2)])
            let misuse = #expect(throws: DatabaseError.self) { try db.run("INSERT INTO probe (n) VALUES (?)", []) }
            #expect(misuse?.resultCode == .SQLITE_MISUSE)
        }
        let kept = try await store.pool.read { db in try Int64.fetchAll(db, sql: "SELECT n FROM probe ORDER BY n") }
        #expect(kept == [1, 2])
        try store.close()
    }

    /// Outside a transaction a write would commit by itself: it is refused, and nothing is
    /// written. (A transaction SQLite rolled back on an I/O error leaves the connection the
    /// same way; that error itself is not produced here.)
    @Test func outsideATransactionNothingIsWritten() async throws {
        let store = try await store("direct-autocommit")
        try await store.pool.writeWithoutTransaction { db in
            let error = #expect(throws: DatabaseError.self) {
                try db.run("INSERT INTO probe (n) VALUES (?)", [Int64(1)])
            }
            #expect(error?.resultCode == .SQLITE_ABORT)
        }
        let count = try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM probe") }
        #expect(count == 0)
        try store.close()
    }
}
