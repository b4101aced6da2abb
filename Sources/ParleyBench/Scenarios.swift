import Foundation
import ParleyCore
import ParleyKit

/// What `parley bench` can be told.
public struct BenchOptions: Sendable {
    /// The nodes' URLs: accounts and conversations are made through the first; sockets go
    /// to each in turn.
    public var servers = ["http://127.0.0.1:8080"]
    public var users = 10
    public var rate = 1000.0
    public var duration = 10.0
    public var messageSize = 100
    public var groupSize = 50
    public var messages = 10_000
    public var connections = 1000
    public var p99BoundMs = 50.0
    /// The most steps a ramp takes.
    public var rampSteps = 12
    /// How long a run waits after its last send for every acknowledgement and delivery; what
    /// has not come by then counts as lost.
    public var drainTimeout: Duration = .seconds(10)
    /// Fixes the user names (a fresh server is then needed per run); random when nil.
    public var seed: UInt64?
    /// The nodes' processes, whose CPU time and memory are added up.
    public var serverPIDs: [Int32] = []
    /// search: a shell command run after seeding and before the queries, such as
    /// `scripts/copy-messages.sh`, which multiplies the stored messages in the database.
    public var beforeQueries: String?
    /// upload: the sizes of the files, in MiB (20 files of each size below 100 MiB, 3 of
    /// each larger one).
    public var fileSizesMiB = [1, 100]
    /// direct and ramp: each message goes to a partner drawn at random (a `toUserId` send,
    /// nearly always the first between the two) instead of within fixed pairs.
    public var randomPartners = false
    /// direct, ramp and group: each recipient answers every message with a `delivered`
    /// frame, as the SDK does, so the load holds the marks a real client writes.
    public var receipts = false
    /// login: the direct conversations (with a message each) every user has before the storm.
    public var conversationsPerUser = 0
    /// grow: whether the members' sockets are open while they are added.
    public var membersOnline = true
    /// login: the `limit` of the first sync each login asks for.
    public var syncPage = 200

    public init() {}
}

/// The load scenarios. Each drives a running server over its real protocol from this
/// process and returns what it measured.
public enum BenchScenario: String, CaseIterable, Sendable {
    case idle, direct, ramp, group, grow, catchup, login, search, upload

    public func run(_ options: BenchOptions) async throws -> [BenchReport] {
        let client = BenchClient(servers: options.servers, seed: options.seed)
        let server = options.serverPIDs.isEmpty ? nil : ServerProcess(pids: options.serverPIDs)
        switch self {
        case .direct: return [try await Self.direct(options, client, server)]
        case .ramp: return try await Self.ramp(options, client, server)
        case .group: return [try await Self.group(options, client, server)]
        case .idle: return [try await Self.idle(options, client, server)]
        case .catchup: return [try await Self.catchup(options, client, server)]
        case .grow: return [try await GrowthAndLoginBench.grow(options, client, server)]
        case .login:
            return [try await GrowthAndLoginBench.login(options, client, server)]
        case .search: return [try await SearchBench.run(options, client, server)]
        case .upload: return [try await UploadBench.run(options, client, server)]
        }
    }

    // MARK: Direct and ramp

    /// Pairs of users, one direct conversation each, both online; messages at a fixed
    /// aggregate rate, spread over the pairs; latency from each message's scheduled send time.
    static func direct(_ options: BenchOptions, _ client: BenchClient, _ server: ServerProcess?) async throws
        -> BenchReport
    {
        let setup = try await DirectSetup.make(options, client)
        let report = try await setup.run(
            rate: options.rate, duration: options.duration, options: options, server: server, round: 0)
        await setup.close()
        return report
    }

    /// The direct scenario at rising rates (×1.5 per step) until p99 passes the bound or a
    /// message is lost (not delivered within ``BenchOptions/drainTimeout`` of the last send); reports every step and
    /// the highest rate held.
    static func ramp(_ options: BenchOptions, _ client: BenchClient, _ server: ServerProcess?) async throws
        -> [BenchReport]
    {
        let setup = try await DirectSetup.make(options, client)
        var reports: [BenchReport] = []
        var rate = options.rate
        var held = 0.0
        for round in 1...max(1, options.rampSteps) {
            var report = try await setup.run(
                rate: rate, duration: options.duration, options: options, server: server, round: round)
            let ok = report.exactlyOnceInOrder && (report.latencyMs["p99"] ?? .infinity) <= options.p99BoundMs
            report.figures["held"] = ok ? 1 : 0
            reports.append(report)
            guard ok else { break }
            held = rate
            rate *= 1.5
        }
        await setup.close()
        var summary = BenchReport(scenario: "ramp")
        summary.figures["highest rate held (msg/s)"] = held
        summary.figures["p99 bound (ms)"] = options.p99BoundMs
        reports.append(summary)
        return reports
    }

    // MARK: Group

    /// One group of G online members; one member sends at the rate; every other member's
    /// latency is measured, and the latency to the last of them.
    static func group(_ options: BenchOptions, _ client: BenchClient, _ server: ServerProcess?) async throws
        -> BenchReport
    {
        let members = try await client.createUsers(options.groupSize, role: "g")
        let group = try await client.createGroup(owner: members[0], members: Array(members.dropFirst()))
        let clock = BenchClock()
        let tracker = DeliveryTracker(expectedRecipients: members.count - 1)
        // The sender's socket opens last, so that it is not left silent while the others connect.
        var sockets: [BenchSocket] = []
        for (index, member) in members.enumerated().reversed() {
            sockets.insert(
                try await BenchSocket.open(
                    client, token: member.token, clock: clock, acknowledgesDeliveries: options.receipts
                ) { message, arrival in
                    if index > 0 { tracker.record(recipient: index, message: message, arrival: arrival) }
                }, at: 0)
        }
        var report = BenchReport(scenario: "group")
        try await Load.send(
            rate: options.rate, duration: options.duration, size: options.messageSize, clock: clock, id: "g",
            targets: [(sockets[0], .conversation(group))], receivers: Array(sockets.dropFirst()), tracker: tracker,
            report: &report,
            server: server, drainTimeout: options.drainTimeout)
        report.parameters = [
            "rate": "\(Int(options.rate))", "members": "\(members.count)", "size": "\(options.messageSize)",
        ]
        if options.receipts {
            try await Load.awaitDeliveryMarks(on: sockets, since: 0, report: &report, options: options)
        }
        let last = tracker.lastRecipientLatency.percentilesMs
        for (key, value) in last { report.figures["last recipient \(key) (ms)"] = value }
        for socket in sockets { await socket.close() }
        return report
    }

    // MARK: Idle

    /// N authenticated sockets held open: memory per connection and idle CPU of the server.
    static func idle(_ options: BenchOptions, _ client: BenchClient, _ server: ServerProcess?) async throws
        -> BenchReport
    {
        let accounts = try await client.createUsers(max(1, min(options.users, options.connections)), role: "i")
        let clock = BenchClock()
        let before = server?.residentKiB
        let start = ContinuousClock.now
        var sockets: [BenchSocket] = []
        for index in 0..<options.connections {
            sockets.append(
                try await BenchSocket.open(client, token: accounts[index % accounts.count].token, clock: clock))
        }
        let connectSeconds = (ContinuousClock.now - start).seconds
        let cpuBefore = server?.cpuSeconds
        try await Task.sleep(for: .seconds(options.duration))
        var report = BenchReport(scenario: "idle")
        report.parameters = ["connections": "\(options.connections)", "hold": "\(options.duration)s"]
        report.sent = sockets.count
        report.durationSeconds = connectSeconds
        report.throughput = Double(sockets.count) / max(connectSeconds, 0.001)
        if let before, let after = server?.residentKiB {
            report.figures["server RSS before (MiB)"] = before / 1024
            report.figures["server RSS after (MiB)"] = after / 1024
            report.figures["memory per connection (KiB)"] = (after - before) / Double(max(1, sockets.count))
        }
        if let cpuBefore, let cpuAfter = server?.cpuSeconds {
            report.figures["idle server CPU (% of one core)"] = (cpuAfter - cpuBefore) / options.duration * 100
        }
        for socket in sockets { await socket.close() }
        return report
    }

    // MARK: Catch-up

    /// An offline user misses M messages; measured from login until all are fetched (sync,
    /// then history pages of 200).
    static func catchup(_ options: BenchOptions, _ client: BenchClient, _ server: ServerProcess?) async throws
        -> BenchReport
    {
        let accounts = try await client.createUsers(2, role: "c")
        let conversation = try await client.openDirect(accounts[0], with: accounts[1])
        let clock = BenchClock()
        let sender = try await BenchSocket.open(client, token: accounts[0].token, clock: clock)
        for number in 0..<options.messages {
            try await sender.send(
                .send,
                SendMessageRequest(
                    conversationId: conversation, clientMsgId: "c\(number)", kind: .text,
                    content: ["text": .string("missed \(number)")]),
                id: "c\(number)")
        }
        let deadline = ContinuousClock.now + .seconds(300)
        while sender.acknowledgements < options.messages, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        await sender.close()

        let start = ContinuousClock.now
        let tokens: TokenResponse = try await client.api.call(
            .login, body: LoginRequest(login: accounts[1].username, password: "Bench-pass-1", device: "catchup"))
        var cursor: String?
        repeat {
            var query = ["limit": "500"]
            query["cursor"] = cursor
            let page: SyncResponse = try await client.api.call(.sync, query: query, token: tokens.accessToken)
            cursor = page.cursor
            if !page.hasMore { break }
        } while true
        let seqs = try await client.history(of: conversation, token: tokens.accessToken).map(\.seq)
        let elapsed = (ContinuousClock.now - start).seconds
        var report = BenchReport(scenario: "catchup")
        report.parameters = ["missed": "\(options.messages)"]
        report.sent = options.messages
        report.expectedDeliveries = options.messages
        report.deliveries = seqs.count
        report.lost = options.messages - Set(seqs).count
        report.duplicates = seqs.count - Set(seqs).count
        report.outOfOrder = zip(seqs, seqs.dropFirst()).filter { $0 >= $1 }.count
        report.durationSeconds = elapsed
        report.throughput = Double(seqs.count) / max(elapsed, 0.001)
        report.figures["catch-up time (s)"] = elapsed
        return report
    }
}
