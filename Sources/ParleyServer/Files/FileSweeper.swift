import Foundation
import Logging
import ParleyFiles
import ParleyStore
import ServiceLifecycle

/// Throws away uploads whose time ran out, with their chunks, and collects files nothing has
/// referenced for the grace period. Each node runs one; they may overlap, since forgetting a
/// file is checked again in its transaction and deleting bytes twice is harmless.
struct FileSweeper: Service {
    static let batch = 100

    let store: any ParleyStore
    let blobs: any BlobStore
    let clock: WallClock
    let configuration: FileConfiguration
    /// Where completions join chunks; what a node stopped mid-join left there is removed.
    let workDirectory: String
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: configuration.sweepInterval)
                    try await sweep()
                } catch is CancellationError {
                    break
                } catch {
                    logger.warning("Cannot sweep files", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// One pass: answers how many uploads and files it threw away.
    @discardableResult
    func sweep() async throws -> (uploads: Int, files: Int) {
        let now = clock.now()
        var uploads = 0
        var files = 0
        while true {
            let expired = try await store.expiredUploads(at: now, limit: Self.batch)
            for upload in expired {
                try await store.deleteUpload(upload.id)
                // Every chunk stored, recorded or not (a node may have stopped in between).
                for key in try await blobs.keys(prefix: "uploads/\(upload.id)/") { try await blobs.delete(key) }
            }
            uploads += expired.count
            if expired.count < Self.batch { break }
        }
        let cutoff = now - configuration.orphanGrace.milliseconds
        while true {
            let orphans = try await store.collectableFiles(releasedBefore: cutoff, limit: Self.batch)
            var forgotten = 0
            for file in orphans where try await store.forgetFile(file.id, releasedBefore: cutoff) {
                try await blobs.delete(file.blobKey)
                forgotten += 1
            }
            files += forgotten
            if orphans.count < Self.batch || forgotten == 0 { break }
        }
        removeAbandonedWork()
        if uploads + files > 0 {
            logger.info("Swept files", metadata: ["uploads": "\(uploads)", "files": "\(files)"])
        }
        return (uploads, files)
    }

    /// Removes joined files older than an upload's lifetime from the work directory: no
    /// completion takes that long, so they were left by a node that stopped mid-join. Their
    /// age is the file system's, so it is measured by the system's clock.
    private func removeAbandonedWork() {
        let cutoff = Int64(Date().timeIntervalSince1970 * 1000) - configuration.uploadLifetime.milliseconds
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: workDirectory)) ?? [] {
            let path = workDirectory + "/" + name
            guard let modified = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                Int64(modified.timeIntervalSince1970 * 1000) < cutoff
            else { continue }
            try? manager.removeItem(atPath: path)
        }
    }
}
