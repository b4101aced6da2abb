import ParleyTesting
import Testing

/// When PostgreSQL is configured its contract cases run (see ``StoreBackend/available``) and
/// this checks it is really reachable; when not, the test runner lists this as skipped with
/// the reason, so a local run says plainly that PostgreSQL was not tested.
@Suite(
    .enabled(
        if: TestBackend.postgresURL != nil, "PostgreSQL cases skipped: set PARLEY_TEST_POSTGRES_URL (as .ci/run does)"))
struct PostgresAvailabilityTests {
    @Test func theConfiguredPostgreSQLIsReachableAndMigrated() async throws {
        let store = try await StoreBackend.postgres.make()
        try await store.checkReady()
        try await store.close()
    }
}
