import Foundation
import Logging
import ParleyStorePostgres
import ParleyTesting
import Synchronization
import Testing

/// When PostgreSQL is configured its contract cases run (see ``StoreBackend/available``) and
/// this checks it is really reachable; when not, the test runner lists this as skipped with
/// the reason, so a local run says plainly that PostgreSQL was not tested.
@Suite(.enabled(if: TestBackend.postgresURL != nil, "PostgreSQL cases skipped: set PARLEY_TEST_POSTGRES_URL (as .ci/run does)"))
struct PostgresAvailabilityTests {
    @Test func theConfiguredPostgreSQLIsReachableAndMigrated() async throws {
        let store = try await StoreBackend.postgres.make()
        try await store.checkReady()
        try await store.close()
    }

    /// A role allowed one connection can migrate (the pool's connection) but not open the
    /// LISTEN connection: the node must refuse to start with that error, not wait for ever.
    @Test func aStoreThatCannotListenFailsToStartInsteadOfWaiting() async throws {
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let role = "one_conn_\(suffix)"
        let schema = "l_\(suffix)"
        let database = try TestBackend.psql("SELECT current_database()")
        _ = try TestBackend.psql("CREATE ROLE \(role) LOGIN CONNECTION LIMIT 1; GRANT CREATE ON DATABASE \(database) TO \(role)")
        defer {
            _ = try? TestBackend.psql(
                "DROP SCHEMA IF EXISTS \(schema) CASCADE; REVOKE CREATE ON DATABASE \(database) FROM \(role); DROP ROLE \(role)")
        }
        var components = URLComponents(string: TestBackend.postgresURL!)!
        components.user = role
        let url = components.string!
        let logger = Logger(label: "parley-listen-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let result = Mutex<String?>(nil)
        let attempt = Task {
            do {
                let store = try await PostgresStore.connect(url: url, schema: schema, logger: logger)
                try? await store.close()
                result.withLock { $0 = "started" }
            } catch {
                result.withLock { $0 = "failed: \(String(reflecting: error))" }
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while result.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        attempt.cancel()
        let outcome = result.withLock { $0 } ?? "still waiting after 30 s"
        #expect(outcome.hasPrefix("failed:"), "\(outcome)")
        #expect(outcome.contains("53300"), "too_many_connections, from the LISTEN connection: \(outcome)")
    }
}
