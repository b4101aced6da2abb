import AsyncHTTPClient
import Foundation
import Logging
import ParleyFiles
import ParleyStore
import ParleyStorePostgres
import ParleyStoreSQLite
import ServiceLifecycle

/// The storage backend and the fan-out between nodes, chosen here and nowhere else: SQLite
/// with an in-process fan-out by default, PostgreSQL with LISTEN/NOTIFY when
/// `--database-url` is given; file contents in the data directory by default, in an
/// S3-compatible object store when `--files s3://…` is given.
struct Storage {
    let store: any ParleyStore
    let fanOut: any FanOut
    let blobs: any BlobStore
    /// Where this node joins an upload's chunks (in the data directory, so that a file
    /// moves into the disk store without a copy).
    let workDirectory: String
    /// The long-running parts the backend needs (the PostgreSQL listener, the object store's
    /// HTTP client).
    let services: [any Service]

    static func open(_ configuration: ServerConfiguration, logger: Logger) async throws -> Storage {
        let files = try openFiles(configuration)
        if let url = configuration.databaseURL {
            let store = try await PostgresStore.connect(
                url: url, schema: configuration.databaseSchema, connections: configuration.databaseConnections,
                logger: logger)
            do {
                let fanOut = try await PostgresFanOut.start(store: store)
                return Storage(
                    store: store, fanOut: fanOut, blobs: files.blobs, workDirectory: files.workDirectory,
                    services: [fanOut] + files.services)
            } catch {
                try? await store.close()
                throw error
            }
        }
        let store = try SQLiteStore(
            directory: configuration.dataDirectory, durability: configuration.durability,
            commitDelay: configuration.commitDelay)
        return Storage(
            store: store, fanOut: store.fanOut, blobs: files.blobs, workDirectory: files.workDirectory,
            services: files.services)
    }

    private static func openFiles(_ configuration: ServerConfiguration) throws
        -> (blobs: any BlobStore, workDirectory: String, services: [any Service])
    {
        let workDirectory = configuration.dataDirectory + "/uploads-work"
        guard let location = configuration.files.location else {
            return (try DiskBlobStore(directory: configuration.dataDirectory + "/files"), workDirectory, [])
        }
        let s3 = try S3Location(url: location, environment: ProcessInfo.processInfo.environment)
        // A read that stalls for a minute fails rather than holding a download open forever.
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(timeout: .init(connect: .seconds(10), read: .seconds(60))))
        return (S3BlobStore(location: s3, httpClient: client), workDirectory, [HTTPClientCloser(client: client)])
    }
}

/// Shuts the object store's HTTP client down when the server stops.
struct HTTPClientCloser: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
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
