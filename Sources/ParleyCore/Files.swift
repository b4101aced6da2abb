/// `POST /v1/uploads`: what a client declares before it sends a file's bytes.
public struct StartUploadRequest: Codable, Hashable, Sendable, StrictDecodable {
    /// The SHA-256 of the whole content, 64 lower-case hex digits.
    public var sha256: String
    /// The content's length in bytes (at least 1).
    public var size: Int64
    /// The type the client believes the content has. The server sniffs the content and keeps
    /// what it finds; this is only the fallback for content it cannot recognise.
    public var mimeType: String
    /// The file's name on the sender's device (shown for `file` messages).
    public var name: String
    /// The message kind it is meant for, which decides the size limit and the types allowed:
    /// `image`, `voice`, `video` or `file` (the default).
    public var kind: MessageKind?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case sha256, size, mimeType, name, kind
    }

    public init(sha256: String, size: Int64, mimeType: String, name: String, kind: MessageKind? = nil) {
        self.sha256 = sha256
        self.size = size
        self.mimeType = mimeType
        self.name = name
        self.kind = kind
    }
}

/// A stored file: content-addressed, so every upload of the same bytes is the same file.
public struct FileInfo: Codable, Hashable, Sendable {
    public var fileId: String
    public var size: Int64
    public var sha256: String
    /// The type the server found in the content (sniffed, not the client's word).
    public var mimeType: String

    public init(fileId: String, size: Int64, sha256: String, mimeType: String) {
        self.fileId = fileId
        self.size = size
        self.sha256 = sha256
        self.mimeType = mimeType
    }
}

/// Bytes `start` (included) to `end` (excluded) of a file.
public struct ByteRange: Codable, Hashable, Sendable {
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }

    /// `ranges` sorted, with touching and overlapping ones joined.
    public static func merged(_ ranges: [ByteRange]) -> [ByteRange] {
        var result: [ByteRange] = []
        for range in ranges.sorted(by: { $0.start < $1.start }) {
            if let last = result.last, range.start <= last.end {
                result[result.count - 1].end = max(last.end, range.end)
            } else {
                result.append(range)
            }
        }
        return result
    }
}

/// An upload in progress: the chunks received so far, so that a client (the same or a new
/// process) resumes by sending the others.
public struct UploadStatus: Codable, Hashable, Sendable {
    public var uploadId: String
    public var size: Int64
    /// Every chunk starts at a multiple of this and is this long, but the last.
    public var chunkSize: Int64
    /// The bytes received, as sorted ranges that neither touch nor overlap.
    public var received: [ByteRange]
    /// When the upload and its chunks are thrown away if not completed (ms since 1970).
    public var expiresAt: Int64

    public init(uploadId: String, size: Int64, chunkSize: Int64, received: [ByteRange], expiresAt: Int64) {
        self.uploadId = uploadId
        self.size = size
        self.chunkSize = chunkSize
        self.received = received
        self.expiresAt = expiresAt
    }

    /// Whether every byte has arrived.
    public var isComplete: Bool { received == [ByteRange(start: 0, end: size)] }

    /// The offsets of the chunks still missing, in order.
    public var missingOffsets: [Int64] {
        stride(from: Int64(0), to: size, by: Int(chunkSize)).filter { offset in
            !received.contains { $0.start <= offset && offset < $0.end }
        }
    }
}

/// The answer of `POST /v1/uploads`: `file` when the server already holds that content (the
/// message can be sent at once), else the `upload` to send the chunks to.
public struct StartUploadResponse: Codable, Hashable, Sendable {
    public var file: FileInfo?
    public var upload: UploadStatus?

    public init(file: FileInfo? = nil, upload: UploadStatus? = nil) {
        self.file = file
        self.upload = upload
    }
}

/// `POST /v1/files/{fileId}/links`: a URL that downloads the file with no header, until
/// `expiresAt` (for `<img src>` and image loaders).
public struct FileLink: Codable, Hashable, Sendable {
    /// A path and query on this server: `/v1/files/{fileId}?expires=…&signature=…`.
    public var url: String
    public var expiresAt: Int64

    public init(url: String, expiresAt: Int64) {
        self.url = url
        self.expiresAt = expiresAt
    }
}
