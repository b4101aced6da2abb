import Crypto
import Foundation
import ParleyServer

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

    /// Points `configuration` at the test backend for `dataDirectory`.
    public static func configure(_ configuration: inout ServerConfiguration) {
        guard usesPostgres else { return }
        configuration.databaseURL = postgresURL
        configuration.databaseSchema = schema(for: configuration.dataDirectory)
    }

    /// A schema name derived from a data directory path.
    public static func schema(for path: String) -> String {
        "t_" + SHA256.hash(data: Data(path.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
