import Foundation

/// The outcome of one scenario, printed as a table or as JSON (`--json`) for comparisons.
public struct BenchReport: Codable, Sendable {
    public var scenario: String
    public var parameters: [String: String] = [:]
    /// Messages (or logins, connections) attempted and delivered.
    public var sent = 0
    /// Sends the server acknowledged (a `result` frame), where the scenario counts them: a
    /// message acknowledged but not delivered was lost after its commit.
    public var acknowledged: Int?
    public var expectedDeliveries = 0
    public var deliveries = 0
    /// Deliveries that did not arrive within 10 s after the last send.
    public var lost = 0
    public var duplicates = 0
    public var outOfOrder = 0
    /// When deliveries are missing: how many of the run's messages the server committed.
    /// Fewer than `sent` points at the send path; all of them, at fan-out or the receiver.
    public var committed: Int?
    /// Error frames and socket closes during the run, and one of them (the first on the
    /// first socket that had any).
    public var errors = 0
    public var firstError: String?
    public var durationSeconds = 0.0
    /// Deliveries (or operations) per second over the run.
    public var throughput = 0.0
    /// Latency percentiles in milliseconds.
    public var latencyMs: [String: Double] = [:]
    /// Further figures specific to the scenario.
    public var figures: [String: Double] = [:]

    public init(scenario: String) { self.scenario = scenario }

    /// Whether every message arrived exactly once and in order.
    public var exactlyOnceInOrder: Bool { lost == 0 && duplicates == 0 && outOfOrder == 0 }

    public var table: String {
        var lines = [
            "scenario \(scenario)  "
                + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        ]
        func row(_ name: String, _ value: String) {
            lines.append("  " + name.padding(toLength: 34, withPad: " ", startingAt: 0) + value)
        }
        row("sent", "\(sent)")
        if let acknowledged { row("acknowledged", "\(acknowledged)") }
        if expectedDeliveries > 0 {
            row("deliveries (expected)", "\(deliveries) (\(expectedDeliveries))")
            row("lost / duplicates / out of order", "\(lost) / \(duplicates) / \(outOfOrder)")
        }
        if let committed { row("committed by the server", "\(committed)") }
        if errors > 0 { row("errors and closes", "\(errors), first: \(firstError ?? "?")") }
        row("duration", String(format: "%.2f s", durationSeconds))
        row("throughput", String(format: "%.0f /s", throughput))
        for key in ["p50", "p90", "p99", "p99.9", "max"] where latencyMs[key] != nil {
            row("latency \(key)", String(format: "%.2f ms", latencyMs[key]!))
        }
        for (key, value) in figures.sorted(by: { $0.key < $1.key }) { row(key, String(format: "%.2f", value)) }
        return lines.joined(separator: "\n")
    }

    /// Reports as one JSON array, keys sorted, for comparing runs.
    public static func json(_ reports: [BenchReport]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return String(decoding: try encoder.encode(reports), as: UTF8.self)
    }

    /// The first report that breaks delivery: a duplicate or a reordering anywhere, or a loss
    /// anywhere but in the step where a ramp stopped (falling behind is what ends a ramp).
    public static func firstDeliveryFault(in reports: [BenchReport]) -> BenchReport? {
        reports.first { $0.duplicates > 0 || $0.outOfOrder > 0 || ($0.lost > 0 && $0.figures["held"] != 0) }
    }
}
