import AsyncHTTPClient
import Foundation
import Testing
import ParleyTesting

@testable import ParleyFiles

/// A blob store the contract suite runs against. Every backend must pass every test of
/// ``BlobStoreContractTests`` unchanged.
struct BlobBackend: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable () throws -> any BlobStore

    var testDescription: String { name }

    /// A store in a fresh temporary directory.
    static let disk = BlobBackend(name: "disk") {
        try DiskBlobStore(
            directory: temporaryPath("parley-blobs"))
    }

    /// The S3-compatible store at `PARLEY_TEST_S3_URL` (`scripts/test-s3.sh start` runs one),
    /// listing keys 2 at a time so that every listing of more than 2 keys takes several pages.
    static let s3 = BlobBackend(name: "S3") {
        let environment = ProcessInfo.processInfo.environment
        return S3BlobStore(
            location: try S3Location(url: environment["PARLEY_TEST_S3_URL"] ?? "", environment: environment),
            httpClient: .shared, timeout: .seconds(60), listPageSize: 2)
    }

    /// The disk always; S3 too when `PARLEY_TEST_S3_URL` is set.
    static var available: [BlobBackend] {
        ProcessInfo.processInfo.environment["PARLEY_TEST_S3_URL"] == nil ? [.disk] : [.disk, .s3]
    }

    /// Runs `body` with a store and a key prefix no other test uses, then deletes what is under
    /// the prefix (and, on disk, the directory).
    func withStore(_ body: (_ store: any BlobStore, _ prefix: String) async throws -> Void) async throws {
        let store = try make()
        let prefix = "t-\(UUID().uuidString.lowercased())/"
        do {
            try await body(store, prefix)
        } catch {
            try? await Self.remove(store, prefix)
            throw error
        }
        try await Self.remove(store, prefix)
    }

    private static func remove(_ store: any BlobStore, _ prefix: String) async throws {
        for key in try await store.keys(prefix: prefix) {
            try await store.delete(key)
        }
        if let disk = store as? DiskBlobStore {
            try FileManager.default.removeItem(atPath: disk.directory)
        }
    }
}
