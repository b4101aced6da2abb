import Foundation
import Logging
import ParleyStore
import ParleyTesting
import PostgresNIO
import Testing

@testable import ParleyStorePostgres

/// The catalogue of statement names, without a server.
struct PreparedStatementsCatalogueTests {
    @Test func aStatementKeepsItsNameAndOtherTypesGetAnother() throws {
        let catalogue = PreparedStatements(limit: 10)
        let first = try #require(catalogue.statement("SELECT $1", types: [.int8]))
        #expect(catalogue.statement("SELECT $1", types: [.int8])?.name == first.name)
        let asText = try #require(catalogue.statement("SELECT $1", types: [.text]))
        #expect(asText.name != first.name)
        #expect(catalogue.statement("SELECT $1 + 1", types: [.int8])?.name != first.name)
        #expect(catalogue.issued == 3)
    }

    @Test func pastTheLimitStatementsGoUnnamedAndNamedOnesStay() throws {
        let catalogue = PreparedStatements(limit: 2)
        let first = try #require(catalogue.statement("SELECT 1", types: []))
        _ = try #require(catalogue.statement("SELECT 2", types: []))
        #expect(catalogue.statement("SELECT 3", types: []) == nil)
        #expect(catalogue.statement("SELECT 1", types: [])?.name == first.name)
    }

    @Test func aFailureThatIsNotTheServersLeavesTheName() throws {
        let catalogue = PreparedStatements(limit: 10)
        let statement = try #require(catalogue.statement("SELECT 1", types: []))
        catalogue.failed(statement, with: CancellationError())
        #expect(catalogue.statement("SELECT 1", types: [])?.name == statement.name)
    }
}

/// Statements prepared once per connection, against a real server: the failures that
/// would leave a name unusable on a connection, and those that must not cost a name.
@Suite(.enabled(if: TestBackend.postgresURL != nil, "needs PostgreSQL: set PARLEY_TEST_POSTGRES_URL"))
struct PreparedStatementsTests {
    /// A store in a schema of its own.
    func store() async throws -> PostgresStore {
        try await StoreBackend.postgres.make() as! PostgresStore
    }

    /// A statement no other test runs, so that this process has not prepared it yet.
    func unique(_ sql: String) -> String { "\(sql) -- \(UUID().uuidString)" }

    /// The error `body` throws, as PostgreSQL's SQLSTATE.
    func sqlState(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? PSQLError)?.serverInfo?[.sqlState]
        }
    }

    @Test func aStatementIsPreparedOncePerConnectionAndRunByName() async throws {
        let store = try await store()
        let sql = unique("SELECT $1::bigint + 1 AS next")
        let name = try await store.client.withConnection { connection in
            for value in Int64(1)...3 {
                let next = try await connection.scalar(Int64.self, sql, [.int(value)], logger: store.logger)
                #expect(next == value + 1)
            }
            return try await connection.rows(
                "SELECT name FROM pg_prepared_statements WHERE statement = $1", [.text(sql)], prepared: false,
                logger: store.logger
            ).map { try $0.text("name") }
        }
        #expect(name == [PreparedStatements.shared.statement(sql, types: [.int8])?.name])
    }

    @Test func aStatementFirstRunInAFailedTransactionRunsOnceItHasEnded() async throws {
        let store = try await store()
        let sql = unique("SELECT 41 + $1 AS answer")
        try await store.client.withConnection { connection in
            try await connection.rows("BEGIN", prepared: false, logger: store.logger)
            #expect(
                await sqlState { try await connection.rows("SELECT 1 / 0", prepared: false, logger: store.logger) }
                    == "22012")
            // Its preparation fails: the transaction is aborted.
            #expect(
                await sqlState { try await connection.rows(sql, [.int(1)], logger: store.logger) } == "25P02")
            try await connection.rows("ROLLBACK", prepared: false, logger: store.logger)
            let answer = try await connection.scalar(Int64.self, sql, [.int(1)], logger: store.logger)
            #expect(answer == 42)
        }
    }

    @Test func aStatementRunsAgainAfterAMigrationChangedItsColumns() async throws {
        let store = try await store()
        let sql = unique("SELECT * FROM widened")
        try await store.client.withConnection { connection in
            try await connection.rows("CREATE TABLE widened (a int)", prepared: false, logger: store.logger)
            try await connection.rows("INSERT INTO widened VALUES (1)", prepared: false, logger: store.logger)
            #expect(try await connection.rows(sql, logger: store.logger).first?.count == 1)
            try await connection.rows(
                "ALTER TABLE widened ADD COLUMN b int DEFAULT 2", prepared: false, logger: store.logger)
            // PostgreSQL refuses the statement prepared before: its result has changed.
            #expect(await sqlState { try await connection.rows(sql, logger: store.logger) } == "0A000")
            let row = try #require(try await connection.rows(sql, logger: store.logger).first)
            #expect(try row.int("b") == 2)
        }
    }

    @Test func aDuplicateKeyKeepsTheStatementsName() async throws {
        let store = try await store()
        let sql = unique("INSERT INTO once (id) VALUES ($1)")
        try await store.client.withConnection { connection in
            try await connection.rows(
                "CREATE TABLE once (id bigint PRIMARY KEY)", prepared: false, logger: store.logger)
            try await connection.rows(sql, [.int(1)], logger: store.logger)
            let name = PreparedStatements.shared.statement(sql, types: [.int8])?.name
            #expect(await sqlState { try await connection.rows(sql, [.int(1)], logger: store.logger) } == "23505")
            #expect(PreparedStatements.shared.statement(sql, types: [.int8])?.name == name)
            try await connection.rows(sql, [.int(2)], logger: store.logger)
        }
    }
}
