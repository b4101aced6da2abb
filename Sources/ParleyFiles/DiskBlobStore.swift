import Foundation
import NIOCore
import NIOPosix
import _NIOFileSystem

/// A ``BlobStore`` in a directory on local disk: the object under `files/ab/cd` is the file
/// `<directory>/files/ab/cd`.
///
/// A reader never sees part of an object: `put` writes the whole object to a file in
/// `<directory>/~incoming` (a name no key can have), flushes it to disk, then renames it into
/// place; `putFile` flushes the given file and renames it. Deleting the last object of a
/// directory removes the directories it leaves empty.
///
/// On disk a key cannot be both an object and the directory of other keys (`a` and `a/b`),
/// which S3 allows; keys laid out as `kind/…/name` never are.
public struct DiskBlobStore: BlobStore {
    /// The directory the objects are in, absolute.
    public let directory: String
    private let fileSystem = FileSystem.shared

    /// Where objects are written before they are renamed into place.
    private var incomingDirectory: String { directory + "/~incoming" }

    /// Opens the store in `directory`, creating it and its parents if needed.
    public init(directory: String) throws {
        let absolute =
            directory.hasPrefix("/")
            ? directory : FileManager.default.currentDirectoryPath + "/" + directory
        self.directory = FilePath(absolute).lexicallyNormalized().string
        try FileManager.default.createDirectory(atPath: incomingDirectory, withIntermediateDirectories: true)
    }

    public func put(_ key: String, bytes: ByteBuffer) async throws {
        try BlobKey.validate(key)
        let temporary = temporaryPath()
        do {
            try await fileSystem.withFileHandle(
                forWritingAt: FilePath(temporary), options: .newFile(replaceExisting: false)
            ) { file in
                try await file.write(contentsOf: bytes, toAbsoluteOffset: 0)
                try await file.synchronize()
            }
            _ = try await moveIntoPlace(temporary, key: key)
        } catch {
            _ = try? await fileSystem.removeItem(at: FilePath(temporary), recursively: false)
            throw error
        }
    }

    /// Renames the file into place; when it is on another file system, copies it to the incoming
    /// directory first, then deletes it.
    public func putFile(_ key: String, path: String, size: Int64, sha256: String) async throws {
        try BlobKey.validate(key)
        try await Self.synchronize(path)
        if try await moveIntoPlace(path, key: key) { return }
        let temporary = temporaryPath()
        do {
            try await fileSystem.copyItem(at: FilePath(path), to: FilePath(temporary))
            try await Self.synchronize(temporary)
            _ = try await moveIntoPlace(temporary, key: key)
        } catch {
            _ = try? await fileSystem.removeItem(at: FilePath(temporary), recursively: false)
            throw error
        }
        _ = try await fileSystem.removeItem(at: FilePath(path), recursively: false)
    }

    public func size(of key: String) async throws -> Int64? {
        try BlobKey.validate(key)
        let path = path(of: key)
        return try await NIOThreadPool.singleton.runIfActive {
            var status = stat()
            guard stat(path, &status) == 0 else {
                let error = Errno(rawValue: errno)
                if error == .noSuchFileOrDirectory || error == .notDirectory { return nil }
                throw IOError(errnoCode: error.rawValue, reason: "stat '\(path)'")
            }
            return status.st_mode & S_IFMT == S_IFREG ? Int64(status.st_size) : nil
        }
    }

    /// As S3 does, a range that runs past the end of the object is cut there.
    public func read(_ key: String, range: Range<Int64>?) async throws -> BlobStream {
        try BlobKey.validate(key)
        guard let chunks = try await LocalFileChunks.open(path: path(of: key), range: range) else {
            throw BlobStoreError.notFound(key)
        }
        return BlobStream(chunks)
    }

    public func delete(_ key: String) async throws {
        try BlobKey.validate(key)
        let path = path(of: key)
        switch try await Self.systemCall({ remove(path) }) {
        case nil:
            try await removeEmptyDirectories(above: key)
        case .noSuchFileOrDirectory?, .notDirectory?, .directoryNotEmpty?:
            return  // No object, or the directory of other keys.
        case let error?:
            throw IOError(errnoCode: error.rawValue, reason: "remove '\(path)'")
        }
    }

    public func keys(prefix: String) async throws -> [String] {
        try BlobKey.validatePrefix(prefix)
        // Only the directory of the prefix's complete segments can hold matching keys.
        let prefixDirectory = prefix.lastIndex(of: "/").map { String(prefix[...$0]) } ?? ""
        var keys: [String] = []
        do {
            try await fileSystem.withDirectoryHandle(atPath: FilePath(directory + "/" + prefixDirectory)) { handle in
                for try await batch in handle.listContents(recursive: true).batched() {
                    for entry in batch where entry.type == .regular {
                        let key = String(entry.path.string.dropFirst(directory.count + 1))
                        if key.hasPrefix(prefix), BlobKey.isValid(key) { keys.append(key) }
                    }
                }
            }
        } catch let error as FileSystemError where error.code == .notFound {
            return []
        }
        return keys
    }

    private func path(of key: String) -> String {
        directory + "/" + key
    }

    private func temporaryPath() -> String {
        incomingDirectory + "/" + String(UInt64.random(in: .min ... .max), radix: 16) + "-"
            + String(UInt64.random(in: .min ... .max), radix: 16)
    }

    /// Renames the file at `source` to the path of `key`, replacing any file there and creating the
    /// directories it needs. Returns false, renaming nothing, when the two are on different file
    /// systems.
    private func moveIntoPlace(_ source: String, key: String) async throws -> Bool {
        let destination = path(of: key)
        var attempts = 0
        while true {
            attempts += 1
            switch try await Self.systemCall({ rename(source, destination) }) {
            case nil:
                return true
            case .improperLink?:
                return false
            case .noSuchFileOrDirectory? where attempts < 3:
                // The key's directory does not exist yet, or a delete has just removed it (or one
                // of its parents, even while it was being created) as empty: create it and retry.
                // Should it fail to create, the retried rename says so.
                try? await fileSystem.createDirectory(
                    at: FilePath(destination).removingLastComponent(), withIntermediateDirectories: true)
            case let error?:
                throw IOError(errnoCode: error.rawValue, reason: "rename '\(source)' to '\(destination)'")
            }
        }
    }

    /// Removes the directories of `key`'s path, deepest first, while they are empty.
    private func removeEmptyDirectories(above key: String) async throws {
        var segments = key.split(separator: "/").dropLast()
        while !segments.isEmpty {
            let directoryOfKeys = directory + "/" + segments.joined(separator: "/")
            // Removing a directory that is not empty fails, and then those above are not empty either.
            if try await Self.systemCall({ rmdir(directoryOfKeys) }) != nil { return }
            segments = segments.dropLast()
        }
    }

    /// Runs a system call on NIO's thread pool for blocking I/O; the error it set if it failed.
    private static func systemCall(_ call: @escaping @Sendable () -> Int32) async throws -> Errno? {
        try await NIOThreadPool.singleton.runIfActive { call() == 0 ? nil : Errno(rawValue: errno) }
    }

    /// Flushes the file at `path` to disk, so that it is whole once renamed, even after a power cut.
    private static func synchronize(_ path: String) async throws {
        try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { file in
            try await file.synchronize()
        }
    }
}
