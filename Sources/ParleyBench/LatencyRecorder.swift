import Histogram
import Synchronization

/// Latencies in microseconds in an HdrHistogram (1 µs to 10 min, 3 significant digits).
final class LatencyRecorder: Sendable {
    private let histogram = Mutex(
        Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three))

    func record(microseconds: Int64) {
        _ = histogram.withLock { $0.record(UInt64(max(1, microseconds))) }
    }

    /// p50, p90, p99, p99.9 and max in milliseconds.
    var percentilesMs: [String: Double] {
        histogram.withLock { histogram in
            guard histogram.totalCount > 0 else { return [:] }
            var result: [String: Double] = [:]
            for (name, percentile) in [("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p99.9", 99.9)] {
                result[name] = Double(histogram.valueAtPercentile(percentile)) / 1000
            }
            result["max"] = Double(histogram.max) / 1000
            return result
        }
    }
}
