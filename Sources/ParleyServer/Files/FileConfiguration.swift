import ParleyCore

/// The limits and places of files: where their bytes go, how large each kind may be, which
/// types are allowed, each user's quota, and how long uploads and unreferenced files live.
public struct FileConfiguration: Sendable {
    /// Where file contents are kept: nil for `<data directory>/files` on local disk, or an
    /// object store as `s3://bucket?endpoint=…&region=…` (`--files`).
    public var location: String?
    /// The largest file for each kind of message, in bytes (`--max-file-size kind=bytes`).
    public var maxBytes: [MessageKind: Int64] = [
        .image: 20 * mebibyte, .voice: 10 * mebibyte, .video: 500 * mebibyte, .file: 500 * mebibyte,
    ]
    /// The types a file may have, as `type/subtype` or `type/*` (`--file-types`); nil allows
    /// any type. Each kind's own rule applies as well (``FileRules/accepts(_:for:)``).
    public var allowedTypes: [String]?
    /// The bytes one user may hold in files they uploaded and uploads they have open.
    public var quotaBytes: Int64 = 10 * 1024 * mebibyte
    /// The length of every chunk but the last.
    public var chunkSize: Int64 = 4 * mebibyte
    /// The uploads one user may have open at once.
    public var maxOpenUploads = 20
    /// How long an upload may take before it and its chunks are thrown away.
    public var uploadLifetime: Duration = .seconds(24 * 3600)
    /// How long a file nothing references is kept (from its upload, its last claim or its last
    /// reference) before it is collected.
    public var orphanGrace: Duration = .seconds(24 * 3600)
    /// How often expired uploads and orphaned files are looked for.
    public var sweepInterval: Duration = .seconds(600)
    /// The longest voice message, in ms.
    public var maxVoiceDurationMs: Int64 = 60_000
    /// How long a signed download link works.
    public var linkLifetime: Duration = .seconds(3600)

    public static let mebibyte: Int64 = 1024 * 1024
    /// The bounds of ``chunkSize``: a chunk is one request body, held in memory while stored.
    public static let chunkSizes: ClosedRange<Int64> = 64 * 1024...16 * mebibyte

    public init() {}

    /// Whether files of `mimeType` are allowed on this server.
    public func allows(_ mimeType: String) -> Bool {
        guard let allowedTypes else { return true }
        return allowedTypes.contains { pattern in
            pattern.hasSuffix("/*") ? mimeType.hasPrefix(pattern.dropLast()) : mimeType == pattern
        }
    }
}
