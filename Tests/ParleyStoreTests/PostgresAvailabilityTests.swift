import Foundation
import ParleyTesting
import Testing

/// Says plainly when the PostgreSQL half of the contract suite did not run.
@Suite struct PostgresAvailabilityTests {
    @Test(.enabled(if: TestBackend.postgresURL == nil,
        "PostgreSQL is configured; its contract cases run"))
    func postgresSkipNotice() {
        print("PostgreSQL storage tests skipped: set PARLEY_TEST_POSTGRES_URL=postgres://user@127.0.0.1:5432/db (as .ci/run does) to run the contract suite against PostgreSQL too.")
    }
}
