import Crypto
import Foundation
import NIOCore
import ParleyCore
import ParleyFiles
import ParleyStore

/// Uploads, downloads and the files messages show: every rule of files on the server, for
/// HTTP (the only transport that carries bytes).
struct FileService: Sendable {
    let store: any ParleyStore
    let blobs: any BlobStore
    let clock: WallClock
    let configuration: FileConfiguration
    let links: FileLinkSigner
    /// Where an upload's chunks are joined and checked before the file is stored.
    let workDirectory: String
    /// Counts each user's uploads started (`upload`), instant ones too.
    let limiter: RateLimiter

    // MARK: Uploads

    /// Starts an upload, or answers the file at once when the server holds the content.
    func start(_ request: StartUploadRequest, by identity: Identity) async throws -> StartUploadResponse {
        try FileRules.check(request)
        let kind = request.kind ?? .file
        let limit = configuration.maxBytes[kind] ?? 0
        guard request.size <= limit else {
            throw ParleyError(.fileTooLarge, "A \(kind.rawValue) may be at most \(limit) bytes.")
        }
        try checkType(request.mimeType, for: kind, declared: true)
        try await limiter.take(.upload, for: identity.userId)
        let now = clock.now()
        if let existing = try await store.file(sha256: request.sha256), existing.size == request.size {
            try checkType(existing.mimeType, for: kind, declared: false)
            if !(try await store.mayRead(existing.id, userId: identity.userId)) {
                try await checkQuota(adding: existing.size, for: identity)
            }
            try await store.claimFile(existing.id, by: identity.userId, at: now)
            return StartUploadResponse(file: existing.info)
        }
        try await checkQuota(adding: request.size, for: identity)
        guard try await store.openUploadCount(of: identity.userId) < configuration.maxOpenUploads else {
            throw ParleyError(
                .tooManyUploads,
                "You have \(configuration.maxOpenUploads) uploads open: complete or cancel one first.")
        }
        let upload = UploadRecord(
            id: FileRules.randomID(), userId: identity.userId, sha256: request.sha256, size: request.size,
            mimeType: request.mimeType, name: request.name, kind: kind, chunkSize: configuration.chunkSize,
            createdAt: now, expiresAt: now + configuration.uploadLifetime.milliseconds)
        try await store.createUpload(upload)
        return StartUploadResponse(upload: status(of: upload, received: []))
    }

    /// The chunks an upload has received.
    func status(of uploadId: String, for identity: Identity) async throws -> UploadStatus {
        let upload = try await openUpload(uploadId, of: identity)
        return status(of: upload, received: try await store.chunks(of: upload.id))
    }

    /// Stores the chunk at `offset`: exactly a chunk's length (shorter only at the end), and
    /// when `digest` (a `Content-Digest` header) is given, bytes whose SHA-256 it names.
    func putChunk(
        _ bytes: ByteBuffer, at offsetText: String, digest: String?, of uploadId: String, by identity: Identity
    ) async throws -> UploadStatus {
        let upload = try await openUpload(uploadId, of: identity)
        guard let offset = Int64(offsetText), offset >= 0, offset < upload.size, offset % upload.chunkSize == 0
        else {
            throw ParleyError(
                .chunkInvalid,
                "A chunk's offset must be a multiple of \(upload.chunkSize) below the file's size (\(upload.size)).")
        }
        let expected = min(upload.chunkSize, upload.size - offset)
        guard bytes.readableBytes == expected else {
            throw ParleyError(
                .chunkInvalid,
                "The chunk at \(offset) must be exactly \(expected) bytes; this one is \(bytes.readableBytes).")
        }
        if let digest { try Self.check(bytes, against: digest) }
        try await blobs.put(upload.chunkKey(at: offset), bytes: bytes)
        try await store.recordChunk(of: upload.id, at: offset, length: expected)
        return status(of: upload, received: try await store.chunks(of: upload.id))
    }

    /// Joins the chunks, checks the size and the hash and stores the file; on a mismatch, or
    /// content of a type the upload's kind does not take, nothing is kept.
    func complete(_ uploadId: String, by identity: Identity) async throws -> FileInfo {
        let upload = try await openUpload(uploadId, of: identity)
        let chunks = try await store.chunks(of: upload.id)
        let status = status(of: upload, received: chunks)
        guard status.isComplete else {
            throw ParleyError(
                .uploadIncomplete,
                "Chunks are missing at offsets \(status.missingOffsets.prefix(10).map(String.init).joined(separator: ", "))"
                    + (status.missingOffsets.count > 10 ? ", …" : "") + ".")
        }
        let joined = try await join(upload, chunks)
        do {
            guard joined.sha256 == upload.sha256 else {
                throw ParleyError(
                    .fileMismatch, "The bytes received do not have the SHA-256 declared; the upload is discarded.")
            }
            let mimeType = FileRules.storedType(sniffed: joined.sniffed, declared: upload.mimeType)
            try checkType(mimeType, for: upload.kind, declared: false)
            let now = clock.now()
            let file = StoredFile(
                id: FileRules.randomID(), sha256: upload.sha256, size: upload.size, mimeType: mimeType, createdAt: now)
            try await blobs.putFile(file.blobKey, path: joined.path, size: file.size, sha256: file.sha256)
            let stored = try await store.completeUpload(upload, as: file, at: now)
            if !stored.created { try await blobs.delete(file.blobKey) }
            await deleteChunks(of: upload, chunks)
            return stored.file.info
        } catch {
            try? FileManager.default.removeItem(atPath: joined.path)
            if error is ParleyError {
                try await store.deleteUpload(upload.id)
                await deleteChunks(of: upload, chunks)
            }
            throw error
        }
    }

    /// Throws an upload away with its chunks.
    func cancel(_ uploadId: String, by identity: Identity) async throws {
        let upload = try await openUpload(uploadId, of: identity)
        let chunks = try await store.chunks(of: upload.id)
        try await store.deleteUpload(upload.id)
        await deleteChunks(of: upload, chunks)
    }

    // MARK: Downloads

    /// The file, if `identity` may read it.
    func readable(_ fileId: String, by identity: Identity) async throws -> StoredFile {
        guard FileRules.isWellFormedID(fileId), let file = try await store.file(id: fileId),
            try await store.mayRead(fileId, userId: identity.userId)
        else { throw FileRules.notFound(fileId) }
        return file
    }

    /// The file a signed link opens.
    func linked(_ fileId: String, expires: String, signature: String) async throws -> StoredFile {
        try await links.check(fileId: fileId, expires: expires, signature: signature, at: clock.now())
        guard let file = try await store.file(id: fileId) else { throw FileRules.notFound(fileId) }
        return file
    }

    /// A link that downloads the file with no header until it expires.
    func link(to fileId: String, for identity: Identity) async throws -> FileLink {
        let file = try await readable(fileId, by: identity)
        return try await links.link(to: file.id, expiresAt: clock.now() + configuration.linkLifetime.milliseconds)
    }

    // MARK: Messages

    /// Checks the files a message shows: each exists and `sender` may use it (they uploaded
    /// it or can read it), its type suits the message, and the sizes and durations the
    /// message states are true and within the limits.
    func checkFiles(of content: MessageContent, kind: MessageKind, sentBy sender: UserID) async throws {
        if case .voice(_, let durationMs) = content,
            !(1...configuration.maxVoiceDurationMs).contains(Int64(durationMs))
        {
            throw ParleyError(
                .messageInvalid,
                "A voice message lasts 1 to \(configuration.maxVoiceDurationMs) ms; this one says \(durationMs).")
        }
        for reference in content.fileReferences {
            guard FileRules.isWellFormedID(reference.fileId), let file = try await store.file(id: reference.fileId),
                try await store.mayRead(file.id, userId: sender)
            else { throw FileRules.notFound(reference.fileId) }
            guard FileRules.accepts(file.mimeType, for: reference.kind) else {
                throw ParleyError(
                    .messageInvalid,
                    "File '\(file.id)' is \(file.mimeType), which a \(kind.rawValue) message cannot show as its "
                        + "\(reference.kind == kind ? "content" : "image").")
            }
            if let size = reference.size, size != file.size {
                throw ParleyError(
                    .messageInvalid, "The message says file '\(file.id)' has \(size) bytes; it has \(file.size).")
            }
        }
    }

    // MARK: Parts

    private func status(of upload: UploadRecord, received: [ByteRange]) -> UploadStatus {
        UploadStatus(
            uploadId: upload.id, size: upload.size, chunkSize: upload.chunkSize, received: ByteRange.merged(received),
            expiresAt: upload.expiresAt)
    }

    /// The caller's upload that has not expired; someone else's is not found either.
    private func openUpload(_ uploadId: String, of identity: Identity) async throws -> UploadRecord {
        guard FileRules.isWellFormedID(uploadId), let upload = try await store.upload(uploadId),
            upload.userId == identity.userId, upload.expiresAt > clock.now()
        else { throw ParleyError(.uploadNotFound, "There is no open upload '\(uploadId)' of yours.") }
        return upload
    }

    private func checkType(_ mimeType: String, for kind: MessageKind, declared: Bool) throws {
        guard FileRules.accepts(mimeType, for: kind), configuration.allows(mimeType) else {
            throw ParleyError(
                .fileTypeNotAllowed,
                "\(declared ? "A file declared as" : "Content of type") \(mimeType) cannot be sent as "
                    + "\(kind == .image ? "an" : "a") \(kind.rawValue) on this server.")
        }
    }

    private func checkQuota(adding size: Int64, for identity: Identity) async throws {
        let used = try await store.storageUsed(by: identity.userId)
        guard used + size <= configuration.quotaBytes else {
            throw ParleyError(
                .quotaExceeded,
                "This file needs \(size) bytes; you use \(used) of your \(configuration.quotaBytes).")
        }
    }

    /// The chunks written in order to one local file, with the SHA-256 of the whole and the
    /// type sniffed from its first bytes.
    private func join(_ upload: UploadRecord, _ chunks: [ByteRange]) async throws
        -> (path: String, sha256: String, sniffed: String?)
    {
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        let path = workDirectory + "/" + upload.id + "-" + FileRules.randomID()
        var hasher = SHA256()
        var head: [UInt8] = []
        do {
            try await LocalFileWriter.write(to: path) { append in
                for chunk in chunks {
                    for try await buffer in try await blobs.read(upload.chunkKey(at: chunk.start), range: nil) {
                        buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                        if head.count < ContentSniffer.prefixLength {
                            head +=
                                buffer.getBytes(
                                    at: buffer.readerIndex,
                                    length: min(buffer.readableBytes, ContentSniffer.prefixLength - head.count)) ?? []
                        }
                        try await append(buffer)
                    }
                }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        let digest = hasher.finalize().hexEncoded
        return (path, digest, ContentSniffer.mimeType(of: head))
    }

    private func deleteChunks(of upload: UploadRecord, _ chunks: [ByteRange]) async {
        for chunk in chunks { try? await blobs.delete(upload.chunkKey(at: chunk.start)) }
    }

    /// Checks a `Content-Digest: sha-256=:<base64>:` header (RFC 9530) against the bytes.
    private static func check(_ bytes: ByteBuffer, against header: String) throws {
        let entries = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let entry = entries.first(where: { $0.lowercased().hasPrefix("sha-256=") }) else {
            throw ParleyError(.chunkInvalid, "'Content-Digest' must hold a sha-256 entry: sha-256=:<base64>:")
        }
        let value = entry.dropFirst("sha-256=".count)
        guard value.count > 2, value.hasPrefix(":"), value.hasSuffix(":"),
            let claimed = Data(base64Encoded: String(value.dropFirst().dropLast()))
        else { throw ParleyError(.chunkInvalid, "'Content-Digest' must hold sha-256=:<base64>:") }
        let actual = bytes.withUnsafeReadableBytes { Data(SHA256.hash(data: $0)) }
        guard actual == claimed else {
            throw ParleyError(.fileMismatch, "The chunk's bytes do not match its Content-Digest; it was not stored.")
        }
    }
}
