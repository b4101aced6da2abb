import ParleyCore
import Synchronization

/// Online users for 1:1 traffic, reused across ramp steps: either pairs with a direct
/// conversation each (`existing`), or users who write to partners drawn at random, so that
/// nearly every message is the first between two people and opens their conversation
/// (`random`).
final class DirectSetup: Sendable {
    let sockets: [BenchSocket]
    let accounts: [BenchAccount]
    /// The pairs' conversations; empty when partners are random.
    let conversations: [ConversationID]
    let clock: BenchClock
    private let current: TrackerBox
    /// Draws the partners when they are random (nil: fixed pairs).
    private let random: RandomPartners?

    private init(
        sockets: [BenchSocket], accounts: [BenchAccount], conversations: [ConversationID], clock: BenchClock,
        current: TrackerBox, random: SplitMix64?
    ) {
        self.sockets = sockets
        self.accounts = accounts
        self.conversations = conversations
        self.clock = clock
        self.current = current
        self.random = random.map(RandomPartners.init)
    }

    static func make(_ options: BenchOptions, _ client: BenchClient) async throws -> DirectSetup {
        let pairs = max(1, options.users / 2)
        let accounts = try await client.createUsers(pairs * 2, role: "d")
        var conversations: [ConversationID] = []
        if !options.randomPartners {
            for pair in 0..<pairs {
                conversations.append(try await client.openDirect(accounts[2 * pair], with: accounts[2 * pair + 1]))
            }
        }
        let clock = BenchClock()
        let box = TrackerBox()
        var sockets: [BenchSocket] = []
        for (index, account) in accounts.enumerated() {
            sockets.append(
                try await BenchSocket.open(
                    client, token: account.token, clock: clock, acknowledgesDeliveries: options.receipts
                ) { message, arrival in
                    box.tracker.record(recipient: index, message: message, arrival: arrival)
                })
        }
        let random = options.randomPartners ? SplitMix64(seed: options.seed ?? UInt64.random(in: 0..<UInt64.max)) : nil
        return DirectSetup(
            sockets: sockets, accounts: accounts, conversations: conversations, clock: clock, current: box,
            random: random)
    }

    /// One run at `rate`: both members of each pair sending in turn, or each message from a
    /// random user to another random user.
    func run(rate: Double, duration: Double, options: BenchOptions, server: ServerProcess?, round: Int) async throws
        -> BenchReport
    {
        let tracker = DeliveryTracker(expectedRecipients: 1)
        current.tracker = tracker
        let targets: [(BenchSocket, BenchTarget)]
        if let random {
            let count = accounts.count
            targets = random.generator.withLock { random in
                (0..<max(1, Int(rate * duration))).map { _ in
                    let sender = random.next(below: count)
                    let recipient = (sender + 1 + random.next(below: count - 1)) % count
                    return (sockets[sender], .user(accounts[recipient].id))
                }
            }
        } else {
            targets = conversations.enumerated().flatMap { pair, conversation in
                [
                    (sockets[2 * pair], .conversation(conversation)),
                    (sockets[2 * pair + 1], .conversation(conversation)),
                ]
            }
        }
        var report = BenchReport(scenario: round == 0 ? "direct" : "ramp step \(round)")
        let marksBefore = Load.deliveryMarks(on: sockets)
        try await Load.send(
            rate: rate, duration: duration, size: options.messageSize, clock: clock, id: "r\(round)", targets: targets,
            receivers: sockets, tracker: tracker, report: &report, server: server, drainTimeout: options.drainTimeout)
        report.parameters = [
            "rate": "\(Int(rate))", "users": "\(accounts.count)", "size": "\(options.messageSize)",
            "partners": random == nil ? "existing" : "random",
        ]
        if options.receipts {
            try await Load.awaitDeliveryMarks(on: sockets, since: marksBefore, report: &report, options: options)
        }
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

/// The seeded generator of the random partners, shared by the ramp's steps.
private final class RandomPartners: Sendable {
    let generator: Mutex<SplitMix64>
    init(_ seed: SplitMix64) { generator = Mutex(seed) }
}

/// A small seeded generator (SplitMix64), so that a run with `--seed` repeats its partners.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func next(below bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }
}
