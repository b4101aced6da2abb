import Crypto
import Foundation
import ParleyCore

/// A cache for avatars, thumbnails and files (SPEC 4): a memory LRU bounded by total bytes
/// in front of a disk directory bounded by total bytes and entry age. Reads fall through
/// memory to disk (promoting what they find); writes go to both.
public actor TwoLevelCache {
    public struct Limits: Sendable {
        public var memoryBytes: Int
        public var diskBytes: Int
        public var maxAge: Duration

        public init(memoryBytes: Int = 16 << 20, diskBytes: Int = 256 << 20, maxAge: Duration = .seconds(7 * 24 * 3600))
        {
            self.memoryBytes = memoryBytes
            self.diskBytes = diskBytes
            self.maxAge = maxAge
        }
    }

    private let directory: URL
    private let limits: Limits
    private let now: @Sendable () -> Date
    private var memory: [String: Data] = [:]
    /// Keys from least to most recently used.
    private var recency: [String] = []
    private var memoryBytes = 0

    public init(directory: URL, limits: Limits = .init(), now: @escaping @Sendable () -> Date = Date.init) throws {
        self.directory = directory
        self.limits = limits
        self.now = now
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The cached data, or nil when absent or expired.
    public func value(forKey key: String) -> Data? {
        if let data = memory[key] {
            touch(key)
            return data
        }
        let file = fileURL(key)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        if now().timeIntervalSince(modified) > limits.maxAge.seconds {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        guard let data = try? Data(contentsOf: file) else { return nil }
        remember(key, data)
        return data
    }

    /// Stores data in memory and on disk, then trims both to their limits.
    public func store(_ data: Data, forKey key: String) throws {
        remember(key, data)
        try data.write(to: fileURL(key), options: .atomic)
        try? FileManager.default.setAttributes([.modificationDate: now()], ofItemAtPath: fileURL(key).path)
        try trimDisk()
    }

    public func remove(forKey key: String) {
        if let data = memory.removeValue(forKey: key) { memoryBytes -= data.count }
        recency.removeAll { $0 == key }
        try? FileManager.default.removeItem(at: fileURL(key))
    }

    /// Bytes held in memory.
    public var memoryUsage: Int { memoryBytes }

    /// Whether a key is in the memory level (for tests and diagnostics).
    public func isInMemory(_ key: String) -> Bool { memory[key] != nil }

    /// Deletes expired files, then the oldest until the directory fits its byte limit.
    public func trimDisk() throws {
        let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey]
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)
        var entries: [(url: URL, modified: Date, size: Int)] = files.compactMap { url in
            guard let values = try? url.resourceValues(forKeys: Set(keys)) else { return nil }
            return (url, values.contentModificationDate ?? .distantPast, values.fileSize ?? 0)
        }
        let cutoff = now().addingTimeInterval(-limits.maxAge.seconds)
        for entry in entries where entry.modified < cutoff { try? FileManager.default.removeItem(at: entry.url) }
        entries = entries.filter { $0.modified >= cutoff }.sorted { $0.modified < $1.modified }
        var total = entries.reduce(0) { $0 + $1.size }
        for entry in entries where total > limits.diskBytes {
            try? FileManager.default.removeItem(at: entry.url)
            total -= entry.size
        }
    }

    private func remember(_ key: String, _ data: Data) {
        if let old = memory[key] { memoryBytes -= old.count }
        memory[key] = data
        memoryBytes += data.count
        touch(key)
        while memoryBytes > limits.memoryBytes, let oldest = recency.first {
            recency.removeFirst()
            if let evicted = memory.removeValue(forKey: oldest) { memoryBytes -= evicted.count }
        }
    }

    private func touch(_ key: String) {
        recency.removeAll { $0 == key }
        recency.append(key)
    }

    private func fileURL(_ key: String) -> URL {
        let name = SHA256.hash(data: Data(key.utf8)).hexEncoded
        return directory.appendingPathComponent(name)
    }
}

extension Duration {
    fileprivate var seconds: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
