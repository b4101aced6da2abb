import Foundation
import ParleyCore
import Synchronization

/// The open-loop sender the scenarios share.
enum Load {
    /// Sends `rate × duration` messages at their scheduled times (not when the previous one
    /// was acknowledged, so queueing in the server shows as latency), round-robin over
    /// `targets`, each carrying its scheduled time in `content.t`; then waits up to
    /// `drainTimeout` for the deliveries to `receivers`. Fills in the delivery checks, duration, throughput
    /// (deliveries per second), acknowledgements, error frames, the server's CPU and memory,
    /// and, when deliveries are missing, how many of the messages the server committed.
    static func send(
        rate: Double, duration: Double, size: Int, clock: BenchClock, id prefix: String,
        targets: [(BenchSocket, BenchTarget)], receivers: [BenchSocket], tracker: DeliveryTracker,
        report: inout BenchReport, server: ServerProcess?, drainTimeout: Duration
    ) async throws {
        let total = max(1, Int(rate * duration))
        let padding = String(repeating: "x", count: max(1, size - 40))
        let start = clock.elapsed + .milliseconds(50)
        let cpuBefore = server?.cpuSeconds
        var seen = Set<ObjectIdentifier>()
        let sockets = (targets.map(\.0) + receivers).filter { seen.insert(ObjectIdentifier($0)).inserted }
        let errorsBefore = sockets.map(\.errors.count)
        let acknowledgedBefore = sockets.reduce(0) { $0 + $1.acknowledgements }
        var acknowledged: Int { sockets.reduce(0) { $0 + $1.acknowledgements } - acknowledgedBefore }
        var next = 0
        while next < total {
            let now = clock.elapsed
            while next < total {
                let scheduled = start + .seconds(Double(next) / rate)
                if scheduled > now { break }
                let (socket, target) = targets[next % targets.count]
                let request = SendMessageRequest(
                    conversationId: target.conversation, toUserId: target.user, clientMsgId: "\(prefix)-\(next)",
                    kind: .text,
                    content: ["text": .string(padding), "t": .number(.integer(Int64(scheduled.microseconds)))])
                try await socket.send(.send, request, id: "\(prefix)\(next)")
                next += 1
            }
            if next < total { try await clock.sleep(until: start + .seconds(Double(next) / rate)) }
        }
        let sendingEnded = clock.elapsed
        let expected = total * tracker.expectedRecipients
        let deadline = ContinuousClock.now + drainTimeout
        while tracker.received < expected || acknowledged < total, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        // Throughput counts until the last delivery, so a backlog drained after the sending
        // ended does not pass for keeping up.
        report.durationSeconds = (max(sendingEnded, tracker.lastArrival) - start).seconds
        tracker.fill(&report, sent: total)
        report.throughput = Double(report.deliveries) / max(report.durationSeconds, 0.001)
        if let cpuBefore, let cpuAfter = server?.cpuSeconds {
            report.figures["server CPU per message (µs)"] = (cpuAfter - cpuBefore) / Double(total) * 1_000_000
        }
        report.acknowledged = acknowledged
        if tracker.received < expected {
            // Where were they lost? What the server committed of this run tells (nil when the
            // server cannot even answer that).
            report.committed = try? await committed(in: targets, clientMsgIdPrefix: "\(prefix)-")
        }
        let newErrors = zip(sockets, errorsBefore).map { socket, before in socket.errors.dropFirst(before) }
        report.errors = newErrors.reduce(0) { $0 + $1.count }
        report.firstError = newErrors.lazy.compactMap(\.first).first
        if let resident = server?.residentKiB { report.figures["server RSS (MiB)"] = resident / 1024 }
    }

    /// Delivery marks the server answered so far, over `sockets`.
    static func deliveryMarks(on sockets: [BenchSocket]) -> Int { sockets.reduce(0) { $0 + $1.deliveryMarks } }

    /// With receipts every delivery is marked: waits (up to the drain timeout) for the
    /// answers to the marks of this run's deliveries, counted from `before`, and reports them.
    static func awaitDeliveryMarks(
        on sockets: [BenchSocket], since before: Int, report: inout BenchReport, options: BenchOptions
    ) async throws {
        let deadline = ContinuousClock.now + options.drainTimeout
        while deliveryMarks(on: sockets) - before < report.deliveries, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        report.figures["delivery marks answered"] = Double(deliveryMarks(on: sockets) - before)
        report.parameters["receipts"] = "on"
    }

    /// How many messages of this run the server holds, over all the target conversations,
    /// each read as one of its senders (nil when the targets are users, whose conversations
    /// the bench does not know).
    private static func committed(in targets: [(BenchSocket, BenchTarget)], clientMsgIdPrefix prefix: String)
        async throws -> Int?
    {
        let known = targets.compactMap { socket, target in target.conversation.map { ($0, socket) } }
        guard known.count == targets.count else { return nil }
        let readers = Dictionary(known, uniquingKeysWith: { first, _ in first })
        var total = 0
        for (conversation, socket) in readers {
            total += try await socket.committedMessages(in: conversation, clientMsgIdPrefix: prefix)
        }
        return total
    }
}

/// Where a bench message goes: a conversation, or a user (a `toUserId` send, which opens the
/// direct conversation when it is the first between the two).
enum BenchTarget: Sendable {
    case conversation(ConversationID)
    case user(UserID)

    var conversation: ConversationID? {
        if case .conversation(let id) = self { return id }
        return nil
    }

    var user: UserID? {
        if case .user(let id) = self { return id }
        return nil
    }
}
