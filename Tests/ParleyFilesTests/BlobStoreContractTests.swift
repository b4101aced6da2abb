import Crypto
import Foundation
import NIOCore
import Testing
import ParleyTesting

@testable import ParleyFiles

/// The blob store contract: what every backend guarantees to the server.
@Suite struct BlobStoreContractTests {
    /// `count` bytes that differ from one offset to the next, the same for the same `seed`.
    static func bytes(_ count: Int, seed: UInt32 = 1) -> ByteBuffer {
        var state = seed
        var buffer = ByteBuffer()
        buffer.reserveCapacity(count)
        for _ in 0..<count {
            state = state &* 1_664_525 &+ 1_013_904_223
            buffer.writeInteger(UInt8(truncatingIfNeeded: state >> 24))
        }
        return buffer
    }

    @Test(arguments: BlobBackend.available)
    func aStoredObjectHasItsSizeAndReadsBackWhole(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            let content = Self.bytes(1000)
            try await store.put(prefix + "files/ab/object", bytes: content)
            #expect(try await store.size(of: prefix + "files/ab/object") == 1000)
            #expect(try await store.read(prefix + "files/ab/object", range: nil).collect(upTo: 1 << 20) == content)
        }
    }

    @Test(arguments: BlobBackend.available)
    func aRangeReadsJustItsBytes(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            let content = Self.bytes(1000)
            try await store.put(prefix + "object", bytes: content)
            for range: Range<Int64> in [0..<1, 400..<600, 999..<1000, 0..<1000] {
                let bytes = try await store.read(prefix + "object", range: range).collect(upTo: 1 << 20)
                #expect(
                    bytes == content.getSlice(at: Int(range.lowerBound), length: range.count),
                    "bytes \(range.lowerBound)..<\(range.upperBound)")
            }
        }
    }

    @Test(arguments: BlobBackend.available)
    func anEmptyObjectOrRangeReadsAsNoBytes(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            try await store.put(prefix + "empty", bytes: ByteBuffer())
            #expect(try await store.size(of: prefix + "empty") == 0)
            #expect(try await store.read(prefix + "empty", range: nil).collect(upTo: 1 << 20).readableBytes == 0)
            try await store.put(prefix + "object", bytes: Self.bytes(10))
            #expect(try await store.read(prefix + "object", range: 4..<4).collect(upTo: 1 << 20).readableBytes == 0)
        }
    }

    @Test(arguments: BlobBackend.available)
    func aPutReplacesTheObjectUnderItsKey(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            try await store.put(prefix + "object", bytes: Self.bytes(5000, seed: 1))
            let replacement = Self.bytes(300, seed: 2)
            try await store.put(prefix + "object", bytes: replacement)
            #expect(try await store.size(of: prefix + "object") == 300)
            #expect(try await store.read(prefix + "object", range: nil).collect(upTo: 1 << 20) == replacement)
        }
    }

    @Test(arguments: BlobBackend.available)
    func putFileMovesALocalFileIntoTheStore(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            let content = Self.bytes(3 * 1024 * 1024)
            let data = Data(content.readableBytesView)
            let path = temporaryPath("parley-upload")
            #expect(FileManager.default.createFile(atPath: path, contents: data))
            let sha256 = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            try await store.putFile(prefix + "files/3m", path: path, size: Int64(data.count), sha256: sha256)
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try await store.size(of: prefix + "files/3m") == Int64(data.count))
            #expect(try await store.read(prefix + "files/3m", range: nil).collect(upTo: 4 << 20) == content)
        }
    }

    @Test(arguments: BlobBackend.available)
    func aMissingObjectHasNoSizeAndCannotBeRead(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            let key = prefix + "files/missing"
            #expect(try await store.size(of: key) == nil)
            await #expect(throws: BlobStoreError.notFound(key)) { try await store.read(key, range: nil) }
            await #expect(throws: BlobStoreError.notFound(key)) { try await store.read(key, range: 0..<1) }
            await #expect(throws: BlobStoreError.notFound(key)) { try await store.read(key, range: 0..<0) }
        }
    }

    @Test(arguments: BlobBackend.available)
    func aDeletedObjectIsMissingAndDeletingAMissingOneIsFine(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            try await store.put(prefix + "uploads/u1/0", bytes: Self.bytes(10))
            try await store.delete(prefix + "uploads/u1/0")
            #expect(try await store.size(of: prefix + "uploads/u1/0") == nil)
            await #expect(throws: BlobStoreError.notFound(prefix + "uploads/u1/0")) {
                try await store.read(prefix + "uploads/u1/0", range: nil)
            }
            try await store.delete(prefix + "uploads/u1/0")
            try await store.delete(prefix + "never/stored")
            #expect(try await store.keys(prefix: prefix).isEmpty)
        }
    }

    /// Keys match their prefix as strings: `a` matches `a/1` and `ab`, `a/` only `a/1`. On S3 the
    /// listing of the 5 keys takes 3 pages of 2.
    @Test(arguments: BlobBackend.available)
    func keysListExactlyTheKeysBeginningWithThePrefix(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            let keys = ["a/1", "a/2", "ab", "b/c/d", "c"].map { prefix + $0 }
            for key in keys {
                try await store.put(key, bytes: Self.bytes(1))
            }
            #expect(Set(try await store.keys(prefix: prefix)) == Set(keys))
            #expect(Set(try await store.keys(prefix: prefix + "a")) == Set(keys[0...2]))
            #expect(Set(try await store.keys(prefix: prefix + "a/")) == Set(keys[0...1]))
            #expect(try await store.keys(prefix: prefix + "b/c/") == [prefix + "b/c/d"])
            #expect(try await store.keys(prefix: prefix + "z").isEmpty)
            #expect(try await store.keys(prefix: prefix + "z/y/").isEmpty)
            #expect(try await store.keys(prefix: "").contains(prefix + "b/c/d"))
        }
    }

    @Test(arguments: BlobBackend.available)
    func keysThatAreNotRelativePathsOfLowerCaseSegmentsAreRefused(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            let invalid = [
                "", "/etc/passwd", "../x", "a/../../b", "..", ".", "a/./b", "a//b", "a/", "Files/A", "a b", "a\\b",
                "é", "a?b", "a#b", "a%2e", String(repeating: "a", count: 1025),
            ]
            for key in invalid {
                await #expect(throws: BlobStoreError.invalidKey(key)) { try await store.put(key, bytes: Self.bytes(1)) }
                await #expect(throws: BlobStoreError.invalidKey(key)) { try await store.size(of: key) }
                await #expect(throws: BlobStoreError.invalidKey(key)) { try await store.read(key, range: nil) }
                await #expect(throws: BlobStoreError.invalidKey(key)) { try await store.delete(key) }
            }
            for invalidPrefix in ["/", "../", "a//", "a/../", "A"] {
                await #expect(throws: BlobStoreError.invalidKey(invalidPrefix)) {
                    try await store.keys(prefix: invalidPrefix)
                }
            }
            try await store.put(prefix + "x_1.y-2/..z", bytes: Self.bytes(1))
            #expect(try await store.keys(prefix: prefix + "x_1.y-2/..") == [prefix + "x_1.y-2/..z"])
        }
    }

    /// The object is read as it is consumed, not gathered first.
    @Test(arguments: BlobBackend.available)
    func aLargeObjectStreamsInSeveralBuffers(_ backend: BlobBackend) async throws {
        try await backend.withStore { store, prefix async throws in
            let content = Self.bytes(5 * 1024 * 1024 + 7)
            try await store.put(prefix + "large", bytes: content)
            var received = ByteBuffer()
            var buffers = 0
            for try await var buffer in try await store.read(prefix + "large", range: nil) {
                buffers += 1
                received.writeBuffer(&buffer)
            }
            #expect(buffers > 1)
            #expect(received == content)
            let middle: Range<Int64> = 1_000_003..<4_000_001
            #expect(
                try await store.read(prefix + "large", range: middle).collect(upTo: 8 << 20)
                    == content.getSlice(at: Int(middle.lowerBound), length: middle.count))
        }
    }
}
