import ParleyCore
import Synchronization

/// Checks what recipients receive: every message once and in seq order per conversation,
/// and how long after its scheduled send time it arrived (to every recipient, and to the
/// last recipient of each message).
final class DeliveryTracker: Sendable {
    private struct State {
        var lastSeq: [String: Int64] = [:]
        var seen: Set<String> = []
        var received = 0
        var duplicates = 0
        var outOfOrder = 0
        var pendingRecipients: [String: Int] = [:]
        var lastArrival = Duration.zero
        /// The slowest delivery's latency and scheduled send time, in microseconds.
        var slowest: (latency: Int64, scheduled: Int64) = (0, 0)
    }

    let expectedRecipients: Int
    let latency = LatencyRecorder()
    let lastRecipientLatency = LatencyRecorder()
    private let state = Mutex(State())

    init(expectedRecipients: Int) { self.expectedRecipients = expectedRecipients }

    /// Records that `recipient` received `message` at `arrival` (time since the run began).
    func record(recipient: Int, message: Message, arrival: Duration) {
        guard let scheduled = message.content.objectValue?["t"]?.numberValue else { return }
        let microseconds = arrival.microseconds - Int64(scheduled)
        let stream = "\(recipient)/\(message.conversationId)"
        let delivery = "\(stream)/\(message.seq)"
        let messageKey = "\(message.conversationId)/\(message.seq)"
        let isLast = state.withLock { state -> Bool? in
            guard state.seen.insert(delivery).inserted else {
                state.duplicates += 1
                return nil
            }
            state.received += 1
            state.lastArrival = max(state.lastArrival, arrival)
            if microseconds > state.slowest.latency { state.slowest = (microseconds, Int64(scheduled)) }
            if let last = state.lastSeq[stream], message.seq < last { state.outOfOrder += 1 }
            state.lastSeq[stream] = max(state.lastSeq[stream] ?? 0, message.seq)
            let remaining = (state.pendingRecipients[messageKey] ?? expectedRecipients) - 1
            state.pendingRecipients[messageKey] = remaining == 0 ? nil : remaining
            return remaining == 0
        }
        guard let isLast else { return }
        latency.record(microseconds: microseconds)
        if isLast { lastRecipientLatency.record(microseconds: microseconds) }
    }

    var received: Int { state.withLock { $0.received } }

    /// When the last delivery arrived (time since the run began).
    var lastArrival: Duration { state.withLock { $0.lastArrival } }

    /// Fills the delivery figures of `report` for `sent` messages.
    func fill(_ report: inout BenchReport, sent: Int) {
        state.withLock { state in
            report.sent = sent
            report.expectedDeliveries = sent * expectedRecipients
            report.deliveries = state.received
            report.lost = max(0, report.expectedDeliveries - state.received)
            report.duplicates = state.duplicates
            report.outOfOrder = state.outOfOrder
            // When in the run the slowest message was due: a stall at the start (warm-up) or a
            // periodic one (a checkpoint, a sweep) reads differently from load.
            if state.received > 0 { report.figures["slowest sent at (s)"] = Double(state.slowest.scheduled) / 1e6 }
        }
        report.latencyMs = latency.percentilesMs
    }
}
