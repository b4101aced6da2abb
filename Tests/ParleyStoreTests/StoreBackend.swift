import Foundation
import ParleyStore
import ParleyStoreSQLite
import Testing

/// A storage backend the contract suite runs against. Every backend must pass every test
/// in ``StoreContractTests`` unchanged.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () async throws -> any ParleyStore

    var testDescription: String { name }

    static let sqlite = StoreBackend(name: "SQLite") {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-store-\(UUID().uuidString)")
        return try SQLiteStore(directory: directory.path)
    }

    /// The backends available in this environment.
    static var available: [StoreBackend] { [.sqlite] }
}

