import ParleyStore

extension SQLiteStore {
    /// A SQLite database serves one node, so its buckets live in this process's memory
    /// (``RateBuckets``): exact, and no disk write per request.
    public func takeToken(_ key: String, burst: Double, perMillisecond: Double, at now: Int64) async throws -> Int64? {
        rateBuckets.take(key, burst: burst, perMillisecond: perMillisecond, at: now)
    }
}
