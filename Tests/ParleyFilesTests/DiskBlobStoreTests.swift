import Foundation
import NIOCore
import Testing
import ParleyTesting

@testable import ParleyFiles

/// What the disk store does on disk, beside the contract: where it writes, what it leaves behind.
struct DiskBlobStoreTests {
    static func makeStore() throws -> DiskBlobStore {
        try DiskBlobStore(
            directory: temporaryPath("parley-blobs"))
    }

    static func contents(of directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    /// tmpfs, a file system of its own on Linux.
    static let otherFileSystem = "/dev/shm"

    static func isOtherFileSystem() -> Bool {
        func device(_ path: String) -> UInt64? {
            var status = stat()
            return stat(path, &status) == 0 ? UInt64(status.st_dev) : nil
        }
        guard let other = device(otherFileSystem) else { return false }
        return other != device(NSTemporaryDirectory())
    }

    @Test func objectsAreFilesUnderTheDirectoryAndWritesLeaveNothingBehind() async throws {
        let store = try Self.makeStore()
        try await store.put("files/ab/cd", bytes: ByteBuffer(string: "hello"))
        let path = temporaryPath("parley-upload")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("file".utf8)))
        try await store.putFile("uploads/u1/0", path: path, size: 4, sha256: "")
        #expect(try String(contentsOfFile: store.directory + "/files/ab/cd", encoding: .utf8) == "hello")
        #expect(try String(contentsOfFile: store.directory + "/uploads/u1/0", encoding: .utf8) == "file")
        #expect(try Self.contents(of: store.directory) == ["files", "uploads", "~incoming"])
        #expect(try Self.contents(of: store.directory + "/~incoming").isEmpty)
        try FileManager.default.removeItem(atPath: store.directory)
    }

    @Test func deletingTheLastObjectOfADirectoryRemovesTheDirectoriesLeftEmpty() async throws {
        let store = try Self.makeStore()
        try await store.put("uploads/u1/0", bytes: ByteBuffer(string: "0"))
        try await store.put("uploads/u2/0", bytes: ByteBuffer(string: "0"))
        try await store.delete("uploads/u1/0")
        #expect(try Self.contents(of: store.directory + "/uploads") == ["u2"])
        try await store.delete("uploads/u2/0")
        #expect(try Self.contents(of: store.directory) == ["~incoming"])
        try await store.put("uploads/u2/1", bytes: ByteBuffer(string: "1"))
        #expect(try await store.keys(prefix: "") == ["uploads/u2/1"])
        try FileManager.default.removeItem(atPath: store.directory)
    }

    /// On disk the file of an object cannot also be the directory of other keys: a key below
    /// an object is missing, and storing one fails.
    @Test func aKeyBelowAnObjectIsMissingAndCannotBeStored() async throws {
        let store = try Self.makeStore()
        try await store.put("files/a", bytes: ByteBuffer(string: "a"))
        #expect(try await store.size(of: "files/a/b") == nil)
        await #expect(throws: BlobStoreError.notFound("files/a/b")) { try await store.read("files/a/b", range: nil) }
        try await store.delete("files/a/b")
        #expect(try await store.keys(prefix: "files/a/") == [])
        await #expect(throws: (any Error).self) { try await store.put("files/a/b", bytes: ByteBuffer(string: "b")) }
        await #expect(throws: (any Error).self) { try await store.put("files", bytes: ByteBuffer(string: "f")) }
        #expect(try await store.keys(prefix: "") == ["files/a"])
        #expect(try Self.contents(of: store.directory + "/~incoming").isEmpty)
        try FileManager.default.removeItem(atPath: store.directory)
    }

    @Test(.enabled(if: isOtherFileSystem(), "needs /dev/shm on a file system of its own"))
    func aFileOnAnotherFileSystemIsCopiedThenDeleted() async throws {
        let store = try Self.makeStore()
        let path = Self.otherFileSystem + "/parley-upload-\(UUID())"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("elsewhere".utf8)))
        try await store.putFile("files/x", path: path, size: 9, sha256: "")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try await store.read("files/x", range: nil).collect(upTo: 100) == ByteBuffer(string: "elsewhere"))
        #expect(try Self.contents(of: store.directory + "/~incoming").isEmpty)
        try FileManager.default.removeItem(atPath: store.directory)
    }

    /// A reader never sees part of an object: one that began before a replacement reads the old
    /// object to its end.
    @Test func aReadThatBeganBeforeAReplacementReadsTheOldObject() async throws {
        let store = try Self.makeStore()
        let old = BlobStoreContractTests.bytes(1024 * 1024, seed: 1)
        try await store.put("object", bytes: old)
        var iterator = try await store.read("object", range: nil).makeAsyncIterator()
        var received = try #require(try await iterator.next())
        try await store.put("object", bytes: BlobStoreContractTests.bytes(2048, seed: 2))
        while var buffer = try await iterator.next() {
            received.writeBuffer(&buffer)
        }
        #expect(received == old)
        #expect(try await store.size(of: "object") == 2048)
        try FileManager.default.removeItem(atPath: store.directory)
    }
}
