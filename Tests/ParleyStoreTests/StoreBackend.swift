import Foundation
import Logging
import ParleyStore
import ParleyStorePostgres
import ParleyStoreSQLite
import ParleyTesting
import Testing

/// A storage backend the contract suite runs against. Every backend must pass every test
/// in ``StoreContractTests`` unchanged.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () async throws -> any ParleyStore
    /// The fan-out a node on `store` hears its changes on, listening; `stop` ends it.
    let listen: @Sendable (any ParleyStore) async throws -> (fanOut: any FanOut, stop: @Sendable () -> Void)

    var testDescription: String { name }

    static let sqlite = StoreBackend(
        name: "SQLite",
        make: {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "parley-store-\(UUID().uuidString)")
            return try SQLiteStore(directory: directory.path)
        },
        listen: { store in ((store as! SQLiteStore).fanOut, {}) })

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
        })

    /// The backends available in this environment. PostgreSQL joins when
    /// `PARLEY_TEST_POSTGRES_URL` is set (CI sets it); without it the PostgreSQL cases are not
    /// generated, and `PostgresAvailabilityTests` is reported as skipped with the reason.
    static var available: [StoreBackend] {
        TestBackend.postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]
    }
}
