import Foundation
import Logging
import ParleyCore
import ParleyStorePostgres
import ParleyTesting
import Synchronization
import Testing

/// A PostgreSQL node that cannot work refuses to start, at once, with an error that says why
/// in PostgreSQL's words (postgres-nio's own error text is deliberately generic).
@Suite struct PostgresStartupTests {
    static let quiet = Logger(label: "parley-startup-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func aDatabaseNobodyListensOnIsReportedWithItsAddress() async throws {
        let port = try freePort()
        let error = await #expect(throws: ParleyError.self) {
            _ = try await PostgresStore.connect(url: "postgres://parley@127.0.0.1:\(port)/parley", logger: Self.quiet)
        }
        #expect(error?.code == .unavailable)
        #expect(
            error?.message.hasPrefix("PostgreSQL at 127.0.0.1:\(port) cannot be used: ") == true,
            "\(String(describing: error))")
    }

    /// Migration 11 gives a fresh schema the trigram index message search uses, creating
    /// pg_trgm first where the database lacks it. Search falls back to scanning without it, so
    /// no search test would notice a store that silently failed to make it.
    @Test(.enabled(if: TestBackend.postgresURL != nil, "needs PostgreSQL: set PARLEY_TEST_POSTGRES_URL"))
    func aFreshSchemaGetsTheTrigramIndexThatSearchUses() async throws {
        let schema = "g_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let store = try await PostgresStore.connect(url: TestBackend.postgresURL!, schema: schema, logger: Self.quiet)
        try await store.close()
        // The schema stays, as every test's does: pg_trgm may live in it now.
        let index = try await TestBackend.psql(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = '\(schema)' AND indexname = 'message_text_trigrams'")
        #expect(index.contains("USING gin (folded"), "the index as PostgreSQL describes it: \(index)")
        #expect(index.contains("gin_trgm_ops"), "\(index)")
    }

    /// A role allowed one connection can migrate (the pool's connection) but not open the
    /// LISTEN connection: the node's fan-out must fail to start with that error (so the node
    /// does not start), not wait for ever.
    @Test(.enabled(if: TestBackend.postgresURL != nil, "needs PostgreSQL: set PARLEY_TEST_POSTGRES_URL"))
    func aStoreThatCannotListenFailsToStartInsteadOfWaiting() async throws {
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let role = "one_conn_\(suffix)"
        let schema = "l_\(suffix)"
        let database = try await TestBackend.psql("SELECT current_database()")
        _ = try await TestBackend.psql(
            "CREATE ROLE \(role) LOGIN CONNECTION LIMIT 1; GRANT CREATE ON DATABASE \(database) TO \(role)")
        var components = URLComponents(string: TestBackend.postgresURL!)!
        components.user = role
        components.password = nil
        let url = components.string!
        let result = Mutex<String?>(nil)
        let attempt = Task {
            do {
                let store = try await PostgresStore.connect(url: url, schema: schema, logger: Self.quiet)
                defer { Task { try? await store.close() } }
                let fanOut = try await PostgresFanOut.start(store: store)
                fanOut.stop()
                result.withLock { $0 = "started" }
            } catch {
                result.withLock { $0 = "failed: \(error)" }
            }
        }
        // Migrating a fresh schema on a loaded machine (the whole suite at once, thousands of
        // schemas in the catalog) has taken over 30 s; a store that waits forever never ends.
        let deadline = ContinuousClock.now + .seconds(90)
        while result.withLock({ $0 }) == nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        attempt.cancel()
        do {
            _ = try await TestBackend.psql(
                "DROP SCHEMA IF EXISTS \(schema) CASCADE; REVOKE CREATE ON DATABASE \(database) FROM \(role); DROP ROLE \(role)"
            )
        } catch {
            Issue.record("could not remove the test role \(role): \(error)")
        }
        let outcome = result.withLock { $0 } ?? "still waiting after 90 s"
        #expect(outcome.hasPrefix("failed:"), "\(outcome)")
        #expect(
            outcome.contains("too many connections for role"),
            "what PostgreSQL said, in the error an operator sees: \(outcome)")
        #expect(outcome.contains("SQLSTATE 53300"), "\(outcome)")
    }
}
