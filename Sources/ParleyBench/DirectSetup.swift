import ParleyCore
import Synchronization

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
            sockets.append(
                try await BenchSocket.open(client, token: account.token, clock: clock) { message, arrival in
                    box.tracker.record(recipient: index, message: message, arrival: arrival)
                })
        }
        return DirectSetup(sockets: sockets, conversations: conversations, clock: clock, current: box)
    }

    /// One run at `rate`, both members of each pair sending in turn.
    func run(rate: Double, duration: Double, options: BenchOptions, server: ServerProcess?, round: Int) async throws
        -> BenchReport
    {
        let tracker = DeliveryTracker(expectedRecipients: 1)
        current.tracker = tracker
        let targets = conversations.enumerated().flatMap { pair, conversation in
            [(sockets[2 * pair], conversation), (sockets[2 * pair + 1], conversation)]
        }
        var report = BenchReport(scenario: round == 0 ? "direct" : "ramp step \(round)")
        try await Load.send(
            rate: rate, duration: duration, size: options.messageSize, clock: clock, id: "r\(round)", targets: targets,
            receivers: sockets, tracker: tracker, report: &report, server: server, drainTimeout: options.drainTimeout)
        report.parameters = [
            "rate": "\(Int(rate))", "pairs": "\(conversations.count)", "size": "\(options.messageSize)",
        ]
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
