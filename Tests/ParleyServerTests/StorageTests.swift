import Logging
import ParleyStorePostgres
import ParleyTesting
import Testing

@testable import ParleyServer

/// What ``Storage/open(_:logger:)`` opens for a configuration.
struct StorageTests {
    @Test(.enabled(if: TestBackend.postgresURL != nil, "needs PostgreSQL: set PARLEY_TEST_POSTGRES_URL"))
    func aPostgreSQLNodesPoolIsAsLargeAsItsConfigurationSays() async throws {
        let directory = temporaryDirectory()
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory
        configuration.databaseURL = TestBackend.postgresURL
        configuration.databaseSchema = TestBackend.schema(for: directory)
        configuration.databaseConnections = 3
        let storage = try await Storage.open(configuration, logger: Logger(label: "storage-test"))
        let store = try #require(storage.store as? PostgresStore)
        #expect(store.connections == 3)
        (storage.fanOut as? PostgresFanOut)?.stop()
        try await store.close()
    }
}
