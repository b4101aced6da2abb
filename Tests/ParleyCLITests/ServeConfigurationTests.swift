import ArgumentParser
import ParleyCore
import ParleyServer
import Testing

@testable import parley

/// How `parley serve` turns its flags and environment into a ``ServerConfiguration``, and
/// what it refuses before anything starts.
struct ServeConfigurationTests {
    /// The configuration `arguments` and `environment` give.
    private func configuration(_ arguments: [String], _ environment: [String: String] = [:]) throws
        -> ServerConfiguration
    {
        try Serve.parse(arguments).configuration(environment: environment)
    }

    /// What `parley serve` says when it refuses `arguments` and `environment`.
    private func refusal(_ arguments: [String], _ environment: [String: String] = [:]) -> String? {
        do {
            _ = try configuration(arguments, environment)
            return nil
        } catch let error as ValidationError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func withNothingGivenEveryValueIsTheServersDefault() throws {
        let given = try configuration([])
        let defaults = ServerConfiguration()
        #expect(given.host == defaults.host && given.port == defaults.port)
        #expect(given.databaseURL == nil && given.durability == .full)
        #expect(given.databaseConnections == 16)
        #expect(given.commitDelay == .milliseconds(1))
        #expect(given.corsOrigins.isEmpty && given.files.maxBytes == defaults.files.maxBytes)
    }

    @Test func aFlagBeatsItsVariableAndAVariableAloneIsUsed() throws {
        let environment = [
            "PARLEY_PORT": "9001", "PARLEY_DATABASE_URL": "postgres://db/parley", "PARLEY_DATABASE_CONNECTIONS": "4",
            "PARLEY_CORS_ORIGINS": "https://a.example, https://b.example", "PARLEY_MAX_FILE_SIZE": "image=1000",
        ]
        let fromEnvironment = try configuration([], environment)
        #expect(fromEnvironment.port == 9001)
        #expect(fromEnvironment.databaseURL == "postgres://db/parley")
        #expect(fromEnvironment.databaseConnections == 4)
        #expect(fromEnvironment.corsOrigins == ["https://a.example", "https://b.example"])
        #expect(fromEnvironment.files.maxBytes[MessageKind(rawValue: "image")] == 1000)
        #expect(try configuration([], ["PARLEY_COMMIT_DELAY": "0"]).commitDelay == .zero)
        #expect(
            try configuration(["--commit-delay", "250"], ["PARLEY_COMMIT_DELAY": "0"]).commitDelay == .microseconds(250)
        )

        let flags = try configuration(
            [
                "--port", "9000", "--database-connections", "2", "--cors-origin", "https://c.example",
                "--max-file-size", "image=2000",
            ], environment)
        #expect(flags.port == 9000)
        #expect(flags.databaseConnections == 2)
        #expect(flags.corsOrigins == ["https://c.example"])
        #expect(flags.files.maxBytes[MessageKind(rawValue: "image")] == 2000)
    }

    @Test(arguments: [
        (
            ["--database-connections", "1001", "--database", "postgres://db/p"],
            "The database connection count must be a whole number in 1...1000, not '1001'."
        ),
        (
            ["--database-connections", "4"],
            "--database-connections (PARLEY_DATABASE_CONNECTIONS) sizes a PostgreSQL pool; it needs --database."
        ),
        (
            ["--sync", "normal", "--database", "postgres://db/p"],
            "--sync (PARLEY_SYNC) sets SQLite's durability; with --database, PostgreSQL's own fsync and synchronous_commit decide it."
        ),
        (["--sync", "fast"], "--sync must be 'full' or 'normal', not 'fast'."),
        (["--commit-delay", "100001"], "The commit delay must be a whole number in 0...100000, not '100001'."),
        (
            ["--commit-delay", "500", "--database", "postgres://db/p"],
            "--commit-delay (PARLEY_COMMIT_DELAY) sets SQLite's group commit; with --database, PostgreSQL's own commit_delay decides it."
        ),
        (["--port", "0"], "The port must be a whole number in 1...65535, not '0'."),
        (["--tls-cert", "cert.pem"], "TLS needs both --tls-cert and --tls-key."),
        (
            ["--cors-origin", "https://a.example/app"],
            "--cors-origin 'https://a.example/app' must be an origin: scheme://host[:port], no path."
        ),
    ])
    func aWrongOrMisplacedFlagIsRefusedByName(arguments: [String], message: String) {
        #expect(refusal(arguments) == message)
    }

    @Test func aWrongVariableIsRefusedAsItsFlagWouldBe() {
        #expect(
            refusal([], ["PARLEY_DATABASE_CONNECTIONS": "-5", "PARLEY_DATABASE_URL": "postgres://db/p"])
                == "The database connection count must be a whole number in 1...1000, not '-5'.")
        #expect(
            refusal([], ["PARLEY_DATABASE_CONNECTIONS": "8"])
                == "--database-connections (PARLEY_DATABASE_CONNECTIONS) sizes a PostgreSQL pool; it needs --database.")
        #expect(
            refusal([], ["PARLEY_SYNC": "full", "PARLEY_DATABASE_URL": "postgres://db/p"])?.hasPrefix(
                "--sync (PARLEY_SYNC)")
                == true)
        #expect(
            refusal([], ["PARLEY_COMMIT_DELAY": "500", "PARLEY_DATABASE_URL": "postgres://db/p"])?.hasPrefix(
                "--commit-delay (PARLEY_COMMIT_DELAY)")
                == true)
    }
}
