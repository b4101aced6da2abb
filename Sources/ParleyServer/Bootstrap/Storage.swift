import Logging
import ParleyStore
import ParleyStorePostgres
import ParleyStoreSQLite
import ServiceLifecycle

/// The storage backend and the fan-out between nodes, chosen here and nowhere else: SQLite
/// with an in-process fan-out by default, PostgreSQL with LISTEN/NOTIFY when
/// `--database-url` is given.
struct Storage {
    let store: any ParleyStore
    let fanOut: any FanOut
    /// The long-running parts the backend needs (the PostgreSQL listener).
    let services: [any Service]

    static func open(_ configuration: ServerConfiguration, logger: Logger) async throws -> Storage {
        if let url = configuration.databaseURL {
            let store = try await PostgresStore.connect(url: url, schema: configuration.databaseSchema, logger: logger)
            do {
                let fanOut = try await PostgresFanOut.start(store: store)
                return Storage(store: store, fanOut: fanOut, services: [fanOut])
            } catch {
                try? await store.close()
                throw error
            }
        }
        let store = try SQLiteStore(directory: configuration.dataDirectory, durability: configuration.durability)
        return Storage(store: store, fanOut: store.fanOut, services: [])
    }
}

/// Closes the store after the HTTP server has stopped (services stop in reverse order).
struct StoreCloser: Service {
    let store: any ParleyStore

    func run() async throws {
        try? await gracefulShutdown()
        try await store.close()
    }
}
