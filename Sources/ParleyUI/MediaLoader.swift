import Foundation
import ParleyCore
import ParleyKit

/// Loads what a screen shows of a file (an image, a thumbnail, a voice message) through a
/// ``TwoLevelCache``: memory first, then disk, then the server in ranges with progress. A
/// file id's content never changes, so a cached copy never goes stale. Requests for a file
/// already being fetched share that download (its progress goes to the first requester).
public actor MediaLoader {
    private let files: Files
    private let cache: TwoLevelCache
    /// Where downloads are assembled before they enter the cache.
    private let workDirectory: URL
    private var inFlight: [String: Task<Data, any Error>] = [:]

    public init(files: Files, cache: TwoLevelCache, workDirectory: URL) throws {
        self.files = files
        self.cache = cache
        self.workDirectory = workDirectory
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
    }

    /// The file's bytes; `progress` hears a download from the server, if one is needed.
    public func data(of fileId: String, progress: @escaping @Sendable (TransferProgress) -> Void = { _ in })
        async throws -> Data
    {
        if let running = inFlight[fileId] { return try await running.value }
        if let cached = await cache.value(forKey: fileId) { return cached }
        // Another request may have started the download while the cache was asked.
        if let running = inFlight[fileId] { return try await running.value }
        let (files, cache, path) = (files, cache, workDirectory.appendingPathComponent(fileId).path)
        let download = Task {
            let info = try await files.info(of: fileId)
            try await files.download(info, to: path, progress: progress)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try await cache.store(data, forKey: fileId)
            return data
        }
        inFlight[fileId] = download
        defer { inFlight[fileId] = nil }
        return try await download.value
    }
}
