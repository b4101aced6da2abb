import NIOCore

/// Where file contents are kept, by key: the data directory on local disk by default, any
/// S3-compatible object store when several nodes share the files.
///
/// Keys are relative paths of `[a-z0-9._-]` segments joined by `/`, such as
/// `files/ab/<sha256>` or `uploads/<uploadId>/3`. The store knows nothing of users,
/// uploads or references: the server decides what is kept and for how long.
public protocol BlobStore: Sendable {
    /// Stores `bytes` under `key`, replacing any object there.
    func put(_ key: String, bytes: ByteBuffer) async throws

    /// Moves the local file at `path` into the store under `key`, replacing any object
    /// there. `size` and `sha256` (lower-case hex) describe the file; a store may use them
    /// to sign or check the transfer. The local file is gone afterwards.
    func putFile(_ key: String, path: String, size: Int64, sha256: String) async throws

    /// The object's size in bytes, or nil when there is no object under `key`.
    func size(of key: String) async throws -> Int64?

    /// The bytes of `range` (the whole object when nil) as a stream of buffers. Throws
    /// ``BlobStoreError/notFound(_:)`` when there is no object under `key`. `range` lies
    /// within the object (the caller has checked it against ``size(of:)``).
    func read(_ key: String, range: Range<Int64>?) async throws -> BlobStream

    /// Deletes the object under `key`; deleting a missing object is not an error.
    func delete(_ key: String) async throws

    /// The keys that begin with `prefix`, in no particular order.
    func keys(prefix: String) async throws -> [String]
}

/// What a ``BlobStore`` reports beside transport errors.
public enum BlobStoreError: Error, Equatable, Sendable {
    /// There is no object under this key.
    case notFound(String)
    /// The key is not a relative path of `[a-z0-9._-]` segments.
    case invalidKey(String)
    /// The object store answered with an error: its HTTP status and its error code.
    case remote(status: Int, code: String, message: String)
}
