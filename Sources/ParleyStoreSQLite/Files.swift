import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func file(sha256: String) async throws -> StoredFile? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM files WHERE sha256 = ?", arguments: [sha256]).map(Self.storedFile)
        }
    }

    public func file(id: String) async throws -> StoredFile? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM files WHERE id = ?", arguments: [id]).map(Self.storedFile)
        }
    }

    public func claimFile(_ fileId: String, by userId: UserID, at now: Int64) async throws {
        try await write { db in try Self.claim(db, fileId, by: userId, at: now) }
    }

    private static func claim(_ db: Database, _ fileId: String, by userId: UserID, at now: Int64) throws {
        try db.execute(
            sql: """
                INSERT INTO file_claims (file_id, user_id, created_at) VALUES (?, ?, ?)
                ON CONFLICT (file_id, user_id) DO UPDATE SET created_at = excluded.created_at
                """,
            arguments: [fileId, userId.rawValue, now])
        try db.execute(
            sql: "UPDATE files SET released_at = MAX(released_at, ?) WHERE id = ?", arguments: [now, fileId])
    }

    public func storageUsed(by userId: UserID) async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT COALESCE((SELECT SUM(f.size) FROM file_claims c JOIN files f ON f.id = c.file_id
                        WHERE c.user_id = ?1), 0)
                        + COALESCE((SELECT SUM(size) FROM uploads WHERE user_id = ?1), 0)
                    """,
                arguments: [userId.rawValue]) ?? 0
        }
    }

    public func openUploadCount(of userId: UserID) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM uploads WHERE user_id = ?", arguments: [userId.rawValue])
                ?? 0
        }
    }

    public func createUpload(_ upload: UploadRecord) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO uploads (id, user_id, sha256, size, mime_type, name, kind, chunk_size, created_at,
                        expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    upload.id, upload.userId.rawValue, upload.sha256, upload.size, upload.mimeType, upload.name,
                    upload.kind.rawValue, upload.chunkSize, upload.createdAt, upload.expiresAt,
                ])
        }
    }

    public func upload(_ id: String) async throws -> UploadRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM uploads WHERE id = ?", arguments: [id]).map(Self.uploadRecord)
        }
    }

    public func recordChunk(of uploadId: String, at offset: Int64, length: Int64) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO upload_chunks (upload_id, chunk_start, length) SELECT id, ?, ? FROM uploads WHERE id = ?
                    ON CONFLICT (upload_id, chunk_start) DO UPDATE SET length = excluded.length
                    """,
                arguments: [offset, length, uploadId])
        }
    }

    public func chunks(of uploadId: String) async throws -> [ByteRange] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT chunk_start, length FROM upload_chunks WHERE upload_id = ? ORDER BY chunk_start",
                arguments: [uploadId]
            ).map { ByteRange(start: $0["chunk_start"], end: $0["chunk_start"] + ($0["length"] as Int64)) }
        }
    }

    public func completeUpload(_ upload: UploadRecord, as file: StoredFile, at now: Int64) async throws
        -> (file: StoredFile, created: Bool)
    {
        try await write { db in
            var result = (file: file, created: true)
            if let existing = try Row.fetchOne(
                db, sql: "SELECT * FROM files WHERE sha256 = ?", arguments: [file.sha256]
            ).map(Self.storedFile) {
                result = (existing, false)
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO files (id, sha256, size, mime_type, created_at, released_at)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [file.id, file.sha256, file.size, file.mimeType, file.createdAt, now])
            }
            try Self.claim(db, result.file.id, by: upload.userId, at: now)
            try db.execute(sql: "DELETE FROM uploads WHERE id = ?", arguments: [upload.id])
            return result
        }
    }

    public func deleteUpload(_ id: String) async throws {
        try await write { db in try db.execute(sql: "DELETE FROM uploads WHERE id = ?", arguments: [id]) }
    }

    public func expiredUploads(at now: Int64, limit: Int) async throws -> [UploadRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM uploads WHERE expires_at <= ? ORDER BY expires_at LIMIT ?",
                arguments: [now, limit]
            ).map(Self.uploadRecord)
        }
    }

    public func mayRead(_ fileId: String, userId: UserID) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM file_claims WHERE file_id = ?1 AND user_id = ?2)
                        OR EXISTS (SELECT 1 FROM file_refs r JOIN messages m ON m.id = r.message_id
                            JOIN members mb ON mb.conversation_id = m.conversation_id AND mb.user_id = ?2
                            WHERE r.file_id = ?1)
                        OR EXISTS (SELECT 1 FROM file_refs r JOIN messages m ON m.id = r.message_id
                            JOIN former_members fm ON fm.conversation_id = m.conversation_id AND fm.user_id = ?2
                            WHERE r.file_id = ?1 AND m.seq <= fm.read_up_to)
                        OR EXISTS (SELECT 1 FROM users WHERE avatar = ?1)
                        OR EXISTS (SELECT 1 FROM conversations WHERE avatar = ?1)
                    """,
                arguments: [fileId, userId.rawValue]) ?? false
        }
    }

    public func collectableFiles(releasedBefore cutoff: Int64, limit: Int) async throws -> [StoredFile] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT f.* FROM files f WHERE f.released_at < ? AND \(Self.unreferenced) LIMIT ?",
                arguments: [cutoff, limit]
            ).map(Self.storedFile)
        }
    }

    public func forgetFile(_ fileId: String, releasedBefore cutoff: Int64) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM files AS f WHERE f.id = ? AND f.released_at < ? AND \(Self.unreferenced)",
                arguments: [fileId, cutoff])
            return db.changesCount > 0
        }
    }

    public func sharedSecret(_ name: String, proposing proposed: String) async throws -> String {
        try await write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO server_secrets (name, value) VALUES (?, ?)", arguments: [name, proposed])
            return try String.fetchOne(db, sql: "SELECT value FROM server_secrets WHERE name = ?", arguments: [name])!
        }
    }

    /// Records that message `messageId` shows `fileIds` (in the append's transaction), which
    /// must still exist.
    static func referenceFiles(_ db: Database, _ fileIds: [String], from messageId: MessageID) throws {
        for fileId in Set(fileIds) {
            try db.cachedStatement(
                sql: "INSERT INTO file_refs (file_id, message_id) SELECT id, ? FROM files WHERE id = ?"
            )
            .execute(arguments: [messageId.rawValue, fileId])
            guard db.changesCount > 0 else { throw FileRules.notFound(fileId) }
        }
    }

    /// Drops the references of a recalled message; a file it was the last to show begins its
    /// grace period.
    static func releaseFiles(_ db: Database, of messageId: MessageID, at now: Int64) throws {
        let fileIds = try String.fetchAll(
            db, sql: "DELETE FROM file_refs WHERE message_id = ? RETURNING file_id", arguments: [messageId.rawValue])
        for fileId in fileIds {
            try db.execute(
                sql: "UPDATE files SET released_at = MAX(released_at, ?) WHERE id = ?", arguments: [now, fileId])
        }
    }

    /// The condition that nothing references file `f`.
    private static let unreferenced = """
        NOT EXISTS (SELECT 1 FROM file_refs r WHERE r.file_id = f.id)
            AND NOT EXISTS (SELECT 1 FROM users u WHERE u.avatar = f.id)
            AND NOT EXISTS (SELECT 1 FROM conversations c WHERE c.avatar = f.id)
        """

    private static func storedFile(_ row: Row) -> StoredFile {
        StoredFile(
            id: row["id"], sha256: row["sha256"], size: row["size"], mimeType: row["mime_type"],
            createdAt: row["created_at"])
    }

    private static func uploadRecord(_ row: Row) -> UploadRecord {
        UploadRecord(
            id: row["id"], userId: UserID(row["user_id"]), sha256: row["sha256"], size: row["size"],
            mimeType: row["mime_type"], name: row["name"], kind: MessageKind(rawValue: row["kind"]),
            chunkSize: row["chunk_size"], createdAt: row["created_at"], expiresAt: row["expires_at"])
    }
}
