import Foundation
import Logging
import ParleyStore
import ParleyTesting
import Testing

@testable import ParleyStorePostgres
@testable import ParleyStoreSQLite

/// A storage backend the contract suite runs against. Every backend must pass every test
/// in ``StoreContractTests`` unchanged.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () async throws -> any ParleyStore
    /// The fan-out a node on `store` hears its changes on, listening; `stop` ends it.
    let listen: @Sendable (any ParleyStore) async throws -> (fanOut: any FanOut, stop: @Sendable () -> Void)
    /// Empties the search index and marks every stored message as not indexed yet: the state
    /// of a store upgraded from a version without search.
    let forgetSearchIndex: @Sendable (any ParleyStore) async throws -> Void
    /// Writes every `nickname_folded` as the nickname lower-cased (the folding before issue
    /// 15, which kept accents), forgets the migration that re-folds them, and opens the store
    /// again: a store upgraded from that version.
    let reopenWithOldNicknameFolding: @Sendable (any ParleyStore) async throws -> any ParleyStore

    var testDescription: String { name }

    static let sqlite = StoreBackend(
        name: "SQLite",
        make: {
            let directory = temporaryPath("parley-store")
            return try SQLiteStore(directory: directory)
        },
        listen: { store in ((store as! SQLiteStore).fanOut, {}) },
        forgetSearchIndex: { store in
            try await (store as! SQLiteStore).pool.write { db in
                try db.execute(
                    sql: """
                        DELETE FROM message_search;
                        UPDATE search_backlog SET indexed_below = (SELECT MAX(id) + 1 FROM messages);
                        """)
            }
        },
        reopenWithOldNicknameFolding: { store in
            let store = store as! SQLiteStore
            try await store.pool.write { db in
                try db.execute(
                    sql: """
                        UPDATE users SET nickname_folded = lower(nickname);
                        DELETE FROM grdb_migrations WHERE identifier = 'v11';
                        """)
            }
            return try SQLiteStore(path: store.pool.path)
        })

    /// PostgreSQL at `PARLEY_TEST_POSTGRES_URL`, each store in a fresh schema.
    static let postgres = StoreBackend(
        name: "PostgreSQL",
        make: {
            var logger = Logger(label: "parley-store-test")
            logger.logLevel = .critical
            let schema = "c_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
            return try await PostgresStore.connect(url: TestBackend.postgresURL!, schema: schema, logger: logger)
        },
        listen: { store in
            let fanOut = try await PostgresFanOut.start(store: store as! PostgresStore)
            return (fanOut, { fanOut.stop() })
        },
        forgetSearchIndex: { store in
            let client = (store as! PostgresStore).client
            try await client.query("DELETE FROM message_text")
            try await client.query("UPDATE search_backlog SET indexed_below = (SELECT MAX(id) + 1 FROM messages)")
        },
        reopenWithOldNicknameFolding: { store in
            let store = store as! PostgresStore
            try await store.client.query("UPDATE users SET nickname_folded = lower(nickname)")
            try await store.client.query("DELETE FROM parley_migrations WHERE version = 12")
            var logger = Logger(label: "parley-store-test")
            logger.logLevel = .critical
            return try await PostgresStore.connect(url: TestBackend.postgresURL!, schema: store.schema, logger: logger)
        })

    /// The backends available in this environment. PostgreSQL joins when
    /// `PARLEY_TEST_POSTGRES_URL` is set (CI sets it); without it the PostgreSQL cases are not
    /// generated, and `PostgresAvailabilityTests` is reported as skipped with the reason.
    static var available: [StoreBackend] {
        TestBackend.postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]
    }
}

/// Whether `condition` comes true within 60 s (checked every 10 ms): for what a fan-out
/// publishes after the write that caused it has returned.
func comesTrue(_ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition(), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
