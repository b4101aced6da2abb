import ParleyCore

/// A file as the catalog keeps it. Its bytes are in the blob store under ``blobKey``.
public struct StoredFile: Sendable, Hashable {
    public var id: String
    public var sha256: String
    public var size: Int64
    /// The sniffed type (``FileRules/storedType(sniffed:declared:)``).
    public var mimeType: String
    public var createdAt: Int64

    public init(id: String, sha256: String, size: Int64, mimeType: String, createdAt: Int64) {
        self.id = id
        self.sha256 = sha256
        self.size = size
        self.mimeType = mimeType
        self.createdAt = createdAt
    }

    /// Where its bytes are: by id, not by hash, so that content stored again after a
    /// collection never shares a key with bytes being deleted.
    public var blobKey: String { "files/\(id.prefix(2))/\(id)" }

    public var info: FileInfo { FileInfo(fileId: id, size: size, sha256: sha256, mimeType: mimeType) }
}

/// An upload in progress, as declared by its user.
public struct UploadRecord: Sendable, Hashable {
    public var id: String
    public var userId: UserID
    public var sha256: String
    public var size: Int64
    /// The declared type, kept for content that has no signature.
    public var mimeType: String
    public var name: String
    public var kind: MessageKind
    public var chunkSize: Int64
    public var createdAt: Int64
    public var expiresAt: Int64

    public init(
        id: String, userId: UserID, sha256: String, size: Int64, mimeType: String, name: String, kind: MessageKind,
        chunkSize: Int64, createdAt: Int64, expiresAt: Int64
    ) {
        self.id = id
        self.userId = userId
        self.sha256 = sha256
        self.size = size
        self.mimeType = mimeType
        self.name = name
        self.kind = kind
        self.chunkSize = chunkSize
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// The key of the chunk at `offset` in the blob store.
    public func chunkKey(at offset: Int64) -> String { "uploads/\(id)/\(offset)" }
}

/// The catalog of files: what content the server holds, who may reference and read it,
/// uploads in progress, and which files nothing references any more.
///
/// A file is referenced by the messages that show it (recorded by the message append, and
/// dropped when a message is recalled) and by the avatars of users and groups. Whoever
/// uploaded it, or asked for it by hash, holds a claim: they may send it and read it. A file
/// that nothing references is collected once ``collectableFiles(releasedBefore:limit:)``
/// finds it: after a grace period from its creation, its last claim or its last reference.
public protocol FileStore: Sendable {
    /// The file holding this content, if any.
    func file(sha256: String) async throws -> StoredFile?
    /// The file with this id, if any.
    func file(id: String) async throws -> StoredFile?
    /// Lets `userId` send and read the file, and starts its grace period again.
    func claimFile(_ fileId: String, by userId: UserID, at now: Int64) async throws
    /// The bytes `userId` holds: the files they claimed and the uploads they have open.
    func storageUsed(by userId: UserID) async throws -> Int64
    /// The user's open uploads, for the limit on how many one may have.
    func openUploadCount(of userId: UserID) async throws -> Int
    func createUpload(_ upload: UploadRecord) async throws
    /// The upload, if it was neither completed nor deleted.
    func upload(_ id: String) async throws -> UploadRecord?
    /// Records that the chunk at `offset` of `length` bytes is stored (again, if it was).
    func recordChunk(of uploadId: String, at offset: Int64, length: Int64) async throws
    /// The chunks recorded, each as its range.
    func chunks(of uploadId: String) async throws -> [ByteRange]
    /// Ends an upload whose bytes were checked: records `file`, or answers the file that
    /// already holds its content (`created` false: the caller deletes its copy of the
    /// bytes); claims it for the uploader; forgets the upload and its chunks.
    func completeUpload(_ upload: UploadRecord, as file: StoredFile, at now: Int64) async throws
        -> (file: StoredFile, created: Bool)
    /// Forgets an upload and its chunks (the caller deletes their bytes).
    func deleteUpload(_ id: String) async throws
    /// Uploads whose time ran out at `now`, oldest first.
    func expiredUploads(at now: Int64, limit: Int) async throws -> [UploadRecord]
    /// Whether `userId` may read the file: they hold a claim, it is an avatar, or a message
    /// showing it is in a conversation they read (as a member, or a former member up to
    /// where they left).
    func mayRead(_ fileId: String, userId: UserID) async throws -> Bool
    /// Files nothing references whose grace period began before `cutoff`.
    func collectableFiles(releasedBefore cutoff: Int64, limit: Int) async throws -> [StoredFile]
    /// Forgets the file if nothing references it and its grace period began before
    /// `cutoff` (checked again in the transaction); true when it was forgotten.
    func forgetFile(_ fileId: String, releasedBefore cutoff: Int64) async throws -> Bool
    /// The secret every node shares under `name`: `proposed` if none was stored yet.
    func sharedSecret(_ name: String, proposing proposed: String) async throws -> String
}
