import Foundation
import ParleyCore
import Synchronization

/// The open-loop sender the scenarios share.
enum Load {
    /// Sends `rate × duration` messages at their scheduled times (not when the previous one
    /// was acknowledged, so queueing in the server shows as latency), round-robin over
    /// `targets`, each carrying its scheduled time in `content.t`; then waits up to 10 s for
    /// the deliveries. Fills duration and the server's CPU and memory figures.
    static func send(
        rate: Double, duration: Double, size: Int, clock: BenchClock, id prefix: String,
        targets: [(BenchSocket, ConversationID)], tracker: DeliveryTracker, report: inout BenchReport, server: ServerProcess?
    ) async throws -> Int {
        let total = max(1, Int(rate * duration))
        let padding = String(repeating: "x", count: max(1, size - 40))
        let start = clock.elapsed + .milliseconds(50)
        let cpuBefore = server?.cpuSeconds
        var next = 0
        while next < total {
            let now = clock.elapsed
            while next < total {
                let scheduled = start + .seconds(Double(next) / rate)
                if scheduled > now { break }
                let (socket, conversation) = targets[next % targets.count]
                let request = SendMessageRequest(
                    conversationId: conversation, clientMsgId: "\(prefix)-\(next)", kind: .text,
                    content: ["text": .string(padding), "t": .number(Double(scheduled.microseconds))])
                try await socket.send(.send, request, id: "\(prefix)\(next)")
                next += 1
            }
            if next < total { try await clock.sleep(until: start + .seconds(Double(next) / rate)) }
        }
        let sendingEnded = clock.elapsed
        let expected = total * tracker.expectedRecipients
        let deadline = ContinuousClock.now + .seconds(10)
        while tracker.received < expected, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        // Throughput counts until the last delivery, so a backlog drained after the sending
        // ended does not pass for keeping up.
        report.durationSeconds = (max(sendingEnded, tracker.lastArrival) - start).seconds
        if let cpuBefore, let cpuAfter = server?.cpuSeconds {
            report.figures["server CPU per message (µs)"] = (cpuAfter - cpuBefore) / Double(total) * 1_000_000
        }
        if let resident = server?.residentKiB { report.figures["server RSS (MiB)"] = resident / 1024 }
        return total
    }
}

/// Pairs of online users with a direct conversation each, reused across ramp steps.
final class DirectSetup: Sendable {
    let sockets: [BenchSocket]
    let conversations: [ConversationID]
    let clock: BenchClock
    private let current: TrackerBox

    private init(sockets: [BenchSocket], conversations: [ConversationID], clock: BenchClock, current: TrackerBox) {
        self.sockets = sockets
        self.conversations = conversations
        self.clock = clock
        self.current = current
    }

    static func make(_ options: BenchOptions, _ client: BenchClient) async throws -> DirectSetup {
        let pairs = max(1, options.users / 2)
        let accounts = try await client.createUsers(pairs * 2, role: "d")
        var conversations: [ConversationID] = []
        for pair in 0..<pairs {
            conversations.append(try await client.openDirect(accounts[2 * pair], with: accounts[2 * pair + 1]))
        }
        let clock = BenchClock()
        let box = TrackerBox()
        var sockets: [BenchSocket] = []
        for (index, account) in accounts.enumerated() {
            sockets.append(try await BenchSocket.open(client, token: account.token, clock: clock) { message, arrival in
                box.tracker.record(recipient: index, message: message, arrival: arrival)
            })
        }
        return DirectSetup(sockets: sockets, conversations: conversations, clock: clock, current: box)
    }

    /// One run at `rate`, both members of each pair sending in turn.
    func run(rate: Double, duration: Double, options: BenchOptions, server: ServerProcess?, round: Int) async throws -> BenchReport {
        let tracker = DeliveryTracker(expectedRecipients: 1)
        current.tracker = tracker
        let targets = conversations.enumerated().flatMap { pair, conversation in
            [(sockets[2 * pair], conversation), (sockets[2 * pair + 1], conversation)]
        }
        var report = BenchReport(scenario: round == 0 ? "direct" : "ramp step \(round)")
        let sent = try await Load.send(
            rate: rate, duration: duration, size: options.messageSize, clock: clock, id: "r\(round)", targets: targets,
            tracker: tracker, report: &report, server: server)
        tracker.fill(&report, sent: sent)
        report.throughput = Double(report.deliveries) / max(report.durationSeconds, 0.001)
        report.parameters = ["rate": "\(Int(rate))", "pairs": "\(conversations.count)", "size": "\(options.messageSize)"]
        return report
    }

    func close() async {
        for socket in sockets { await socket.close() }
    }
}

/// Lets receive callbacks, created before the first run, reach the current run's tracker.
private final class TrackerBox: Sendable {
    private let current = Mutex(DeliveryTracker(expectedRecipients: 1))
    var tracker: DeliveryTracker {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
