import Foundation
import Logging
import ParleyCore
import ParleyStore
import PostgresNIO
import Synchronization

/// The scale-out backend: several stateless server nodes on one PostgreSQL.
///
/// Writes that move a seq or a change version hold a transaction-scoped advisory write lock:
/// sends (first messages too) and read and delivery marks share it and run side by side,
/// serialised only by the rows they lock, a conversation's per conversation (seqs stay dense
/// and commit in seq order); every other versioned write (group and contact changes,
/// settings) takes it alone, so those keep the one-writer world SQLite has. Change versions come from a sequence, drawn
/// under the rows they stamp, so a row's version only grows; a sync reads only up to a
/// version every write at or below has settled at (``settledVersion()``), so cursors stay
/// exact whichever node writes. Each write transaction sends a NOTIFY (ids only, well under
/// the 8,000-byte limit) that PostgreSQL delivers at commit, in commit order, to every
/// node's ``PostgresFanOut``, which fetches what the ids name (``changes(for:)``).
public final class PostgresStore: ParleyStore {
    let client: PostgresClient
    let logger: Logger
    /// The NOTIFY channel; per schema, so isolated test schemas do not hear each other.
    let channel: String
    /// The advisory lock every versioned write takes, shared by sends and by read and
    /// delivery marks, and alone by the others.
    let writeLock: Int64
    /// The first key of the gate lock each versioned write holds with its backend's pid.
    let gateLock: Int64
    /// The advisory lock presence writes take.
    let presenceLock: Int64
    /// Identifies this node in notifications, so only it skips the sending socket.
    let nodeID = UUID().uuidString
    /// Member lists by version, so that delivering a message does not read them each time.
    let memberCache = MemberCache()
    /// Messages this node stored, for its fan-out (``OwnMessages``).
    let ownMessages = OwnMessages()
    /// How to open a connection outside the pool (the fan-out's); see ``configuration(for:)``.
    private let connectionConfiguration: PostgresConnection.Configuration
    /// The schema this store lives in; nil: the connection's default.
    let schema: String?
    /// The most connections the pool opens.
    public let connections: Int
    private let poolTask = Mutex<Task<Void, Never>?>(nil)

    private init(
        client: PostgresClient, connection: PostgresConnection.Configuration, schema: String?, connections: Int,
        logger: Logger
    ) {
        self.client = client
        self.connectionConfiguration = connection
        self.schema = schema
        self.connections = connections
        self.logger = logger
        self.channel = "parley_changes_\(schema ?? "public")"
        self.writeLock = PostgresSchema.writeLock(schema: schema)
        self.gateLock = PostgresSchema.gateLock(schema: schema)
        self.presenceLock = PostgresSchema.presenceLock(schema: schema)
    }

    /// The most connections a pool opens unless told otherwise.
    public static let defaultConnections = 16

    /// Connects to `url` (`postgres://user[:password]@host[:port]/database`), applies
    /// migrations. `schema` isolates one store inside a database; `connections` is the most
    /// the pool opens. Nodes hear each other through ``PostgresFanOut/start(store:)``.
    public static func connect(
        url: String, schema: String? = nil, connections: Int = defaultConnections, logger: Logger
    )
        async throws -> PostgresStore
    {
        guard let components = URLComponents(string: url),
            ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, let user = components.user
        else {
            throw ParleyError(.invalidField, "The database URL must look like postgres://user@host:5432/database.")
        }
        let database = String(components.path.dropFirst())
        var clientConfiguration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: .disable)
        clientConfiguration.options.maximumConnections = connections
        var connection = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: .disable)
        if let schema {
            guard schema.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw ParleyError(.invalidField, "Schema names may contain letters, digits and '_' only.")
            }
            clientConfiguration.options.additionalStartupParameters = [("search_path", schema)]
            connection.options.additionalStartupParameters = [("search_path", schema)]
        }
        clientConfiguration.options.additionalStartupParameters.append(
            ("application_name", applicationName(.pool, schema: schema)))
        let store = PostgresStore(
            client: PostgresClient(configuration: clientConfiguration, backgroundLogger: logger),
            connection: connection,
            schema: schema, connections: connections, logger: logger)
        store.poolTask.withLock { $0 = Task { await store.client.run() } }
        do {
            // One direct connection first: the pool would retry an unreachable server for a
            // minute before failing, and an operator with a wrong URL should know at once.
            try await PostgresConnection.connect(configuration: connection, id: 0, logger: logger).close()
            try await store.migrate(schema: schema)
        } catch {
            try? await store.close()
            throw ParleyError(
                .unavailable, "PostgreSQL at \(host):\(components.port ?? 5432) cannot be used: \(explain(error))")
        }
        return store
    }

    /// What a node's connections do, as their `application_name` in `pg_stat_activity` says:
    /// `parley/SCHEMA/ROLE` (`public` for the default schema).
    enum ConnectionRole: String {
        case pool, listen, load
    }

    static func applicationName(_ role: ConnectionRole, schema: String?) -> String {
        "parley/\(schema ?? "public")/\(role.rawValue)"
    }

    /// How to open a connection of `role` outside the pool.
    func configuration(for role: ConnectionRole) -> PostgresConnection.Configuration {
        var configuration = connectionConfiguration
        configuration.options.additionalStartupParameters.append(
            ("application_name", Self.applicationName(role, schema: schema)))
        return configuration
    }

    public func checkReady() async throws {
        _ = try await client.withConnection { try await $0.scalar(Int64.self, "SELECT 1", logger: logger) }
    }

    public func close() async throws {
        poolTask.withLock { $0 }?.cancel()
    }

    // MARK: Migrations

    private func migrate(schema: String?) async throws {
        let migrationLock = PostgresSchema.migrationLock(schema: schema)
        try await client.withConnection { connection in
            try await connection.rows(
                "SELECT pg_advisory_lock($1)", [.int(migrationLock)], prepared: false, logger: logger)
            do {
                if let schema {
                    try await connection.rows(
                        "CREATE SCHEMA IF NOT EXISTS \(schema)", prepared: false, logger: logger)
                }
                try await connection.rows(
                    "CREATE TABLE IF NOT EXISTS parley_migrations (version INT PRIMARY KEY)", prepared: false,
                    logger: logger)
                let applied = Set(
                    try await connection.rows("SELECT version FROM parley_migrations", prepared: false, logger: logger)
                        .map { try $0[0].decode(Int.self) })
                for migration in PostgresSchema.migrations where !applied.contains(migration.version) {
                    await PostgresSchema.preparations[migration.version]?(connection, logger)
                    let block = PostgresSchema.block(migration.sql, recording: migration.version)
                    if let fill = PostgresSchema.fills[migration.version] {
                        try await connection.withTransaction(logger: logger) { transaction in
                            try await transaction.rows(block, prepared: false, logger: self.logger)
                            try await fill(transaction, self.logger)
                        }
                    } else {
                        // One statement, so one transaction.
                        try await connection.rows(block, prepared: false, logger: logger)
                    }
                }
            } catch {
                _ = try? await connection.rows(
                    "SELECT pg_advisory_unlock($1)", [.int(migrationLock)], prepared: false, logger: logger)
                throw error
            }
            try await connection.rows(
                "SELECT pg_advisory_unlock($1)", [.int(migrationLock)], prepared: false, logger: logger)
        }
    }

    // MARK: Transactions

    /// Runs a versioned write, its notifications sent in the same transaction (delivered at
    /// commit). It holds its gate lock, then the write lock: alone unless `shared`.
    ///
    /// A shared write runs beside other shared writes, so it must lock every row it changes
    /// before drawing a version for it, and lock them in one order: a conversation's row,
    /// then its members' rows, then users' rows (their event seqs). Two of them may still
    /// collide on a unique key (the same send retried on two nodes at once, or two sends
    /// opening one direct conversation) or deadlock; the loser is run again, and then finds
    /// what the winner committed.
    func write<T: Sendable>(
        shared: Bool = false, _ body: @Sendable (PostgresConnection, Notifications) async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await transaction { connection in
                    try await connection.rows(
                        """
                        SELECT pg_advisory_xact_lock($1::int, pg_backend_pid()),
                            pg_advisory_xact_lock\(shared ? "_shared" : "")($2)
                        """,
                        [.int(self.gateLock), .int(self.writeLock)], logger: self.logger)
                    let notifications = Notifications()
                    let value = try await body(connection, notifications)
                    // Every queued note in one statement, in the order queued.
                    if !notifications.isEmpty {
                        try await connection.rows(
                            "SELECT pg_notify($1, payload) FROM json_array_elements_text($2::json) AS payload",
                            [.text(self.channel), .text(try JSONText.encode(notifications.payloads))],
                            logger: self.logger)
                    }
                    return value
                }
            } catch let error as PSQLError where shared && attempt < 3 && Self.isCollision(error) {
                attempt += 1
            }
        }
    }

    /// Whether `error` is a unique violation or a deadlock: what concurrent writes may meet.
    private static func isCollision(_ error: PSQLError) -> Bool {
        ["23505", "40P01"].contains(error.serverInfo?[.sqlState])
    }

    /// Runs `body` in a transaction holding advisory lock `lock`.
    func locked<T: Sendable>(_ lock: Int64, _ body: @Sendable (PostgresConnection) async throws -> T) async throws
        -> T
    {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await connection.rows("SELECT pg_advisory_xact_lock($1)", [.int(lock)], logger: self.logger)
                return try await body(connection)
            }
        } catch let error as PostgresTransactionError {
            throw Self.domainError(error.closureError ?? error.commitError ?? error)
        } catch {
            throw Self.domainError(error)
        }
    }

    /// Runs reads on one connection in one transaction (one snapshot under REPEATABLE READ).
    func read<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await connection.rows(
                    "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", prepared: false, logger: self.logger)
                return try await body(connection)
            }
        } catch let error as PostgresTransactionError {
            throw Self.domainError(error.closureError ?? error.commitError ?? error)
        }
    }

    /// Runs unversioned writes (files, uploads) in one transaction, without the write lock.
    func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { try await body($0) }
        } catch let error as PostgresTransactionError {
            throw Self.domainError(error.closureError ?? error.commitError ?? error)
        } catch {
            throw Self.domainError(error)
        }
    }

    /// Runs one unversioned statement group (accounts, sessions) without the write lock.
    @discardableResult
    func plain<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection { try await body($0) }
        } catch {
            throw Self.domainError(error)
        }
    }

    /// What went wrong, for an operator: the server's message and SQLSTATE, or the connection
    /// failure. (`PSQLError`'s own description is deliberately generic.)
    static func explain(_ error: any Error) -> String {
        guard let psql = error as? PSQLError else { return "\(error)" }
        if let message = psql.serverInfo?[.message] {
            return "\(message) (SQLSTATE \(psql.serverInfo?[.sqlState] ?? "unknown"))"
        }
        return psql.underlying.map { "\(psql.code): \($0)" } ?? "\(psql.code)"
    }

    /// Maps unique violations to the errors callers expect; passes others through.
    static func domainError(_ error: any Error) -> any Error {
        guard let psql = error as? PSQLError, psql.serverInfo?[.sqlState] == "23505" else { return error }
        let constraint = psql.serverInfo?[.constraintName] ?? ""
        if constraint.contains("email") { return ParleyError.emailTaken() }
        if constraint.contains("phone") { return ParleyError.phoneTaken() }
        if constraint.contains("username") { return ParleyError.usernameTaken() }
        return error
    }

    /// Draws the next change version. Draw it after locking what it stamps (or holding the
    /// write lock alone), so that a row's version only grows.
    func nextVersion(_ connection: PostgresConnection) async throws -> Int64 {
        try await connection.scalar(Int64.self, "SELECT nextval('change_versions')", logger: logger)!
    }

    /// The newest change version that is settled: every write that drew it or an older one
    /// has ended (committed or rolled back), so a snapshot taken afterwards holds every
    /// change at or below it. It is the sequence's last value, read before waiting on the
    /// gate lock of each write running then; a write starting later draws a later version.
    func settledVersion() async throws -> Int64 {
        try await plain { connection in
            let last = try await connection.scalar(
                Int64.self, "SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM change_versions",
                logger: self.logger)!
            // One gate at a time, taken and let go: the running write ends, nothing is held.
            try await connection.rows(
                """
                SELECT pg_advisory_lock_shared(classid::int, objid::int), pg_advisory_unlock_shared(classid::int, objid::int)
                FROM pg_locks
                WHERE locktype = 'advisory' AND objsubid = 2 AND classid::bigint = $1 AND granted
                    AND pid <> pg_backend_pid()
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """,
                [.int(self.gateLock)], logger: self.logger)
            return last
        }
    }
}

/// The NOTIFY payloads a write transaction collects (used by one task at a time).
final class Notifications: @unchecked Sendable {
    private(set) var payloads: [String] = []

    /// Whether no note waits: a note sent by the statement that makes it keeps its order then.
    var isEmpty: Bool { payloads.isEmpty }

    func add(_ note: ChangeNote) {
        if let payload = note.payload { payloads.append(payload) }
    }
}
