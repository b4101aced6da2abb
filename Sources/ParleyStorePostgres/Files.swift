import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func file(sha256: String) async throws -> StoredFile? {
        try await plain { connection in
            try await connection.rows("SELECT * FROM files WHERE sha256 = $1", [.text(sha256)], logger: self.logger)
                .first.map(Self.storedFile)
        }
    }

    public func file(id: String) async throws -> StoredFile? {
        try await plain { connection in
            try await connection.rows("SELECT * FROM files WHERE id = $1", [.text(id)], logger: self.logger)
                .first.map(Self.storedFile)
        }
    }

    public func claimFile(_ fileId: String, by userId: UserID, at now: Int64) async throws {
        try await transaction { connection in try await self.claim(connection, fileId, by: userId, at: now) }
    }

    private func claim(_ connection: PostgresConnection, _ fileId: String, by userId: UserID, at now: Int64)
        async throws
    {
        try await connection.rows(
            """
            INSERT INTO file_claims (file_id, user_id, created_at) VALUES ($1, $2, $3)
            ON CONFLICT (file_id, user_id) DO UPDATE SET created_at = excluded.created_at
            """,
            [.text(fileId), .int(userId.rawValue), .int(now)], logger: logger)
        try await connection.rows(
            "UPDATE files SET released_at = GREATEST(released_at, $1) WHERE id = $2", [.int(now), .text(fileId)],
            logger: logger)
    }

    public func storageUsed(by userId: UserID) async throws -> Int64 {
        try await plain { connection in
            try await connection.scalar(
                Int64.self,
                """
                SELECT (COALESCE((SELECT SUM(f.size) FROM file_claims c JOIN files f ON f.id = c.file_id
                    WHERE c.user_id = $1), 0)
                    + COALESCE((SELECT SUM(size) FROM uploads WHERE user_id = $1), 0))::BIGINT
                """,
                [.int(userId.rawValue)], logger: self.logger) ?? 0
        }
    }

    public func openUploadCount(of userId: UserID) async throws -> Int {
        try await plain { connection in
            Int(
                try await connection.scalar(
                    Int64.self, "SELECT COUNT(*) FROM uploads WHERE user_id = $1", [.int(userId.rawValue)],
                    logger: self.logger) ?? 0)
        }
    }

    public func createUpload(_ upload: UploadRecord) async throws {
        try await plain { connection in
            try await connection.rows(
                """
                INSERT INTO uploads (id, user_id, sha256, size, mime_type, name, kind, chunk_size, created_at,
                    expires_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                """,
                [
                    .text(upload.id), .int(upload.userId.rawValue), .text(upload.sha256), .int(upload.size),
                    .text(upload.mimeType), .text(upload.name), .text(upload.kind.rawValue), .int(upload.chunkSize),
                    .int(upload.createdAt), .int(upload.expiresAt),
                ], logger: self.logger)
        }
    }

    public func upload(_ id: String) async throws -> UploadRecord? {
        try await plain { connection in
            try await connection.rows("SELECT * FROM uploads WHERE id = $1", [.text(id)], logger: self.logger)
                .first.map(Self.uploadRecord)
        }
    }

    public func recordChunk(of uploadId: String, at offset: Int64, length: Int64) async throws {
        try await plain { connection in
            try await connection.rows(
                """
                INSERT INTO upload_chunks (upload_id, chunk_start, length) SELECT id, $1, $2 FROM uploads WHERE id = $3
                ON CONFLICT (upload_id, chunk_start) DO UPDATE SET length = excluded.length
                """,
                [.int(offset), .int(length), .text(uploadId)], logger: self.logger)
        }
    }

    public func chunks(of uploadId: String) async throws -> [ByteRange] {
        try await plain { connection in
            try await connection.rows(
                "SELECT chunk_start, length FROM upload_chunks WHERE upload_id = $1 ORDER BY chunk_start",
                [.text(uploadId)], logger: self.logger
            ).map { ByteRange(start: try $0.int("chunk_start"), end: try $0.int("chunk_start") + $0.int("length")) }
        }
    }

    public func completeUpload(_ upload: UploadRecord, as file: StoredFile, at now: Int64) async throws
        -> (file: StoredFile, created: Bool)
    {
        try await transaction { connection in
            // Two uploads of the same bytes may end at once: the second finds the first's row.
            let created =
                try await connection.rows(
                    """
                    INSERT INTO files (id, sha256, size, mime_type, created_at, released_at)
                    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (sha256) DO NOTHING RETURNING id
                    """,
                    [
                        .text(file.id), .text(file.sha256), .int(file.size), .text(file.mimeType), .int(file.createdAt),
                        .int(now),
                    ],
                    logger: self.logger
                ).isEmpty == false
            let stored =
                try await connection.rows(
                    "SELECT * FROM files WHERE sha256 = $1", [.text(file.sha256)], logger: self.logger
                ).first.map(Self.storedFile) ?? file
            try await self.claim(connection, stored.id, by: upload.userId, at: now)
            try await connection.rows("DELETE FROM uploads WHERE id = $1", [.text(upload.id)], logger: self.logger)
            return (stored, created)
        }
    }

    public func deleteUpload(_ id: String) async throws {
        try await plain { connection in
            try await connection.rows("DELETE FROM uploads WHERE id = $1", [.text(id)], logger: self.logger)
        }
    }

    public func expiredUploads(at now: Int64, limit: Int) async throws -> [UploadRecord] {
        try await plain { connection in
            try await connection.rows(
                "SELECT * FROM uploads WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2",
                [.int(now), .int(Int64(limit))], logger: self.logger
            ).map(Self.uploadRecord)
        }
    }

    public func mayRead(_ fileId: String, userId: UserID) async throws -> Bool {
        try await plain { connection in
            try await connection.scalar(
                Bool.self,
                """
                SELECT EXISTS (SELECT 1 FROM file_claims WHERE file_id = $1 AND user_id = $2)
                    OR EXISTS (SELECT 1 FROM file_refs r JOIN messages m ON m.id = r.message_id
                        JOIN members mb ON mb.conversation_id = m.conversation_id AND mb.user_id = $2
                        WHERE r.file_id = $1)
                    OR EXISTS (SELECT 1 FROM file_refs r JOIN messages m ON m.id = r.message_id
                        JOIN former_members fm ON fm.conversation_id = m.conversation_id AND fm.user_id = $2
                        WHERE r.file_id = $1 AND m.seq <= fm.read_up_to)
                    OR EXISTS (SELECT 1 FROM users WHERE avatar = $1)
                    OR EXISTS (SELECT 1 FROM conversations WHERE avatar = $1)
                """,
                [.text(fileId), .int(userId.rawValue)], logger: self.logger) ?? false
        }
    }

    public func collectableFiles(releasedBefore cutoff: Int64, limit: Int) async throws -> [StoredFile] {
        try await plain { connection in
            try await connection.rows(
                "SELECT f.* FROM files f WHERE f.released_at < $1 AND \(Self.unreferenced) LIMIT $2",
                [.int(cutoff), .int(Int64(limit))], logger: self.logger
            ).map(Self.storedFile)
        }
    }

    public func forgetFile(_ fileId: String, releasedBefore cutoff: Int64) async throws -> Bool {
        // Under the write lock, so that no append references the file while it goes.
        try await write { connection, _ in
            try await connection.rows(
                "DELETE FROM files f WHERE f.id = $1 AND f.released_at < $2 AND \(Self.unreferenced) RETURNING id",
                [.text(fileId), .int(cutoff)], logger: self.logger
            ).isEmpty == false
        }
    }

    public func sharedSecret(_ name: String, proposing proposed: String) async throws -> String {
        try await transaction { connection in
            try await connection.rows(
                "INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                [.text(name), .text(proposed)], logger: self.logger)
            return try await connection.scalar(
                String.self, "SELECT value FROM server_secrets WHERE name = $1", [.text(name)], logger: self.logger)!
        }
    }

    /// Records that message `messageId` shows `fileIds` (in the append's transaction), which
    /// must still exist.
    func referenceFiles(_ connection: PostgresConnection, _ fileIds: [String], from messageId: MessageID) async throws {
        for fileId in Set(fileIds) {
            let stored = try await connection.rows(
                "INSERT INTO file_refs (file_id, message_id) SELECT id, $1 FROM files WHERE id = $2 RETURNING file_id",
                [.int(messageId.rawValue), .text(fileId)], logger: logger)
            guard !stored.isEmpty else { throw FileRules.notFound(fileId) }
        }
    }

    /// Drops the references of a recalled message; a file it was the last to show begins its
    /// grace period.
    func releaseFiles(_ connection: PostgresConnection, of messageId: MessageID, at now: Int64) async throws {
        try await connection.rows(
            """
            WITH released AS (DELETE FROM file_refs WHERE message_id = $1 RETURNING file_id)
            UPDATE files SET released_at = GREATEST(released_at, $2) WHERE id IN (SELECT file_id FROM released)
            """,
            [.int(messageId.rawValue), .int(now)], logger: logger)
    }

    /// The condition that nothing references file `f`.
    private static let unreferenced = """
        NOT EXISTS (SELECT 1 FROM file_refs r WHERE r.file_id = f.id)
            AND NOT EXISTS (SELECT 1 FROM users u WHERE u.avatar = f.id)
            AND NOT EXISTS (SELECT 1 FROM conversations c WHERE c.avatar = f.id)
        """

    private static func storedFile(_ row: PostgresRandomAccessRow) throws -> StoredFile {
        StoredFile(
            id: try row.text("id"), sha256: try row.text("sha256"), size: try row.int("size"),
            mimeType: try row.text("mime_type"), createdAt: try row.int("created_at"))
    }

    private static func uploadRecord(_ row: PostgresRandomAccessRow) throws -> UploadRecord {
        UploadRecord(
            id: try row.text("id"), userId: UserID(try row.int("user_id")), sha256: try row.text("sha256"),
            size: try row.int("size"), mimeType: try row.text("mime_type"), name: try row.text("name"),
            kind: MessageKind(rawValue: try row.text("kind")), chunkSize: try row.int("chunk_size"),
            createdAt: try row.int("created_at"), expiresAt: try row.int("expires_at"))
    }
}
