import Crypto
import Foundation
import ParleyCore
import ParleyServer
import Subprocess

/// Which storage the tests run against: SQLite unless `PARLEY_TEST_DATABASE=postgres`, in
/// which case `PARLEY_TEST_POSTGRES_URL` names the database. Each data directory maps to its
/// own PostgreSQL schema, so a restart on "the same data directory" finds the same data.
public enum TestBackend {
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["PARLEY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public static var usesPostgres: Bool {
        ProcessInfo.processInfo.environment["PARLEY_TEST_DATABASE"] == "postgres" && postgresURL != nil
    }

    /// The S3-compatible object store for files (`scripts/test-s3.sh`), if one is running.
    public static var s3URL: String? {
        ProcessInfo.processInfo.environment["PARLEY_TEST_S3_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Points `configuration` at the test backend for `dataDirectory`: with PostgreSQL, the
    /// files go to the object store when one is running, as several nodes need.
    public static func configure(_ configuration: inout ServerConfiguration) {
        // Tests register, log in and send far faster than people; those of the limits turn them on.
        configuration.rateLimits = .off
        guard usesPostgres else { return }
        configuration.databaseURL = postgresURL
        configuration.databaseSchema = schema(for: configuration.dataDirectory)
        configuration.files.location = s3URL
    }

    /// A schema name derived from a data directory path.
    public static func schema(for path: String) -> String {
        "t_" + SHA256.hash(data: Data(path.utf8)).prefix(8).hexEncoded
    }

    /// Runs `sql` through `psql` as the test database's user and answers what it printed
    /// (tuples only, trimmed).
    public static func psql(_ sql: String) async throws -> String {
        guard let postgresURL else { throw PSQLFailure(message: "PARLEY_TEST_POSTGRES_URL is not set") }
        let result = try await Subprocess.run(
            .name("psql"), arguments: [postgresURL, "-v", "ON_ERROR_STOP=1", "-qtAc", sql],
            output: .string(limit: 1 << 20), error: .string(limit: 1 << 16))
        guard result.terminationStatus.isSuccess else {
            throw PSQLFailure(message: "psql failed on: \(sql): \(result.standardError)")
        }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public struct PSQLFailure: Error {
        public let message: String
    }
}
