import ParleyStore
import Synchronization

/// The token buckets of one node, in memory. Buckets that filled up again are forgotten
/// now and then (forgetting a full bucket changes nothing), so the memory follows the keys
/// limited recently.
final class RateBuckets: Sendable {
    private struct Entry {
        var bucket: TokenBucket
        var burst: Double
        var perMillisecond: Double
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var takesSinceSweep = 0
    }

    private let state = Mutex(State())

    func take(_ key: String, burst: Double, perMillisecond: Double, at now: Int64) -> Int64? {
        state.withLock { state in
            state.takesSinceSweep += 1
            if state.takesSinceSweep >= 4_096 {
                state.takesSinceSweep = 0
                state.entries = state.entries.filter {
                    !$0.value.bucket.isFull(burst: $0.value.burst, perMillisecond: $0.value.perMillisecond, at: now)
                }
            }
            var bucket = state.entries[key]?.bucket ?? TokenBucket(tokens: burst, updatedAt: now)
            let wait = bucket.take(burst: burst, perMillisecond: perMillisecond, at: now)
            state.entries[key] = Entry(bucket: bucket, burst: burst, perMillisecond: perMillisecond)
            return wait
        }
    }
}
