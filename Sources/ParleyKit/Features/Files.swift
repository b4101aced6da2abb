import Crypto
import Foundation
import ParleyCore

/// How far a transfer has come: bytes done of the total.
public struct TransferProgress: Sendable, Hashable {
    public var done: Int64
    public var total: Int64

    public init(done: Int64, total: Int64) {
        self.done = done
        self.total = total
    }

    /// From 0 to 1.
    public var fraction: Double { total == 0 ? 1 : Double(done) / Double(total) }
}

/// Files (`client.files`): uploads that find content the server already has by its hash
/// (then nothing is sent), send the rest in chunks and resume after the app restarts;
/// downloads in ranges that resume too; signed links for image loaders.
public struct Files: Sendable {
    let store: ClientStore
    let session: Session

    /// Uploads the file at `path` as content for a message of `kind`, or finds it on the
    /// server by hash; answers the stored file. `progress` hears the bytes sent. An upload
    /// interrupted before (this process or an earlier one was stopped) goes on from the
    /// chunks the server has: its id is kept in the local store under the content's hash.
    public func upload(
        fileAt path: String, kind: MessageKind = .file, mimeType: String = "application/octet-stream",
        name: String? = nil, progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }
    ) async throws -> FileInfo {
        let (sha256, size) = try Self.digest(of: path)
        let key = "upload:" + sha256
        let name = name ?? URL(fileURLWithPath: path).lastPathComponent
        var status: UploadStatus?
        if let known = try store.value(key) {
            status = try? await session.http(.getUpload, known)
        }
        if status == nil {
            let started: StartUploadResponse = try await session.http(
                .startUpload,
                body: StartUploadRequest(sha256: sha256, size: size, mimeType: mimeType, name: name, kind: kind))
            if let file = started.file {
                progress(TransferProgress(done: size, total: size))
                return file
            }
            status = started.upload
            try store.setValue(started.upload?.uploadId, for: key)
        }
        guard let upload = status else { throw ParleyError(.internalError, "The server answered no upload.") }
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let missing = upload.missingOffsets
        var done = size - missing.reduce(Int64(0)) { $0 + min(upload.chunkSize, size - $1) }
        progress(TransferProgress(done: done, total: size))
        for offset in missing {
            try Task.checkCancellation()
            try handle.seek(toOffset: UInt64(offset))
            let chunk = try handle.read(upToCount: Int(min(upload.chunkSize, size - offset))) ?? Data()
            let digest = "sha-256=:" + Data(SHA256.hash(data: chunk)).base64EncodedString() + ":"
            _ = try await session.transfer(
                .putChunk, upload.uploadId, offset, headers: ["Content-Digest": digest], body: chunk)
            done += Int64(chunk.count)
            progress(TransferProgress(done: done, total: size))
        }
        do {
            let file: FileInfo = try await session.http(.completeUpload, upload.uploadId)
            try store.setValue(nil, for: key)
            return file
        } catch let error as ParleyError where !error.code.isTemporary {
            try store.setValue(nil, for: key)  // the server threw the upload away (the file changed meanwhile)
            throw error
        }
    }

    /// Downloads file `fileId` to `path` in ranges of `rangeSize` bytes; `progress` hears the
    /// bytes received. What an interrupted download left in `path + ".part"` is kept and
    /// only the rest is fetched; the file appears at `path` once whole and checked.
    public func download(
        _ file: FileInfo, to path: String, rangeSize: Int64 = 4 * 1024 * 1024,
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }
    ) async throws {
        let partial = path + ".part"
        if !FileManager.default.fileExists(atPath: partial) {
            guard FileManager.default.createFile(atPath: partial, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: partial])
            }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
        var done = Int64(try handle.seekToEnd())
        progress(TransferProgress(done: done, total: file.size))
        while done < file.size {
            let end = min(done + rangeSize, file.size) - 1
            let bytes = try await session.transfer(.getFile, file.fileId, headers: ["Range": "bytes=\(done)-\(end)"])
            guard Int64(bytes.count) == end - done + 1 else {
                try handle.close()
                throw TransportError(
                    .unreachable, "The server sent \(bytes.count) bytes for a range of \(end - done + 1).")
            }
            try handle.write(contentsOf: bytes)
            done += Int64(bytes.count)
            progress(TransferProgress(done: done, total: file.size))
        }
        try handle.close()
        guard try Self.digest(of: partial).sha256 == file.sha256 else {
            try? FileManager.default.removeItem(atPath: partial)
            throw ParleyError(
                .fileMismatch, "The bytes downloaded do not have the file's SHA-256; they were discarded.")
        }
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
    }

    /// What the server holds under `fileId`: its size, hash and type.
    public func info(of fileId: String) async throws -> FileInfo {
        try await session.http(.getFileInfo, fileId)
    }

    /// The whole file in memory (for thumbnails and small images).
    public func data(of fileId: String) async throws -> Data {
        try await session.transfer(.getFile, fileId)
    }

    /// A link that downloads the file with no token until it expires (a path on the server).
    public func link(to fileId: String) async throws -> FileLink {
        try await session.http(.createFileLink, fileId)
    }

    /// The SHA-256 (lower-case hex) and size of the file at `path`, read in pieces.
    static func digest(of path: String) throws -> (sha256: String, size: Int64) {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            hasher.update(data: piece)
            size += Int64(piece.count)
        }
        return (hasher.finalize().hexEncoded, size)
    }
}
