import Foundation
import ParleyCore
import ParleyKit
import Synchronization

/// The scenarios that load the server the way people joining it do: a group growing one
/// member at a time, and logins of users who already have many conversations.
enum GrowthAndLoginBench {
    /// An owner adds `groupSize` members to a new group one at a time (one HTTP request each,
    /// one after the other). With `membersOnline`, every member's socket is open, so each
    /// addition reaches all the members so far as it happens; otherwise only the owner's is.
    /// Reports additions per second, each addition's latency and the server CPU per addition.
    static func grow(_ options: BenchOptions, _ client: BenchClient, _ server: ServerProcess?) async throws
        -> BenchReport
    {
        let owner = try await client.createUsers(1, role: "o")[0]
        let members = try await client.createUsers(options.groupSize, role: "m")
        let group = try await client.createGroup(owner: owner, members: [])
        let clock = BenchClock()
        var sockets: [BenchSocket] = []
        for account in [owner] + (options.membersOnline ? members : []) {
            sockets.append(try await BenchSocket.open(client, token: account.token, clock: clock))
        }
        let latency = LatencyRecorder()
        let cpuBefore = server?.cpuSeconds
        let start = ContinuousClock.now
        for member in members {
            let began = ContinuousClock.now
            let _: MembersAdded = try await client.api.call(
                .addMembers, [group], body: AddMembersRequest(userIds: [member.id]), token: owner.token)
            latency.record(microseconds: (ContinuousClock.now - began).microseconds)
        }
        var report = BenchReport(scenario: "grow")
        report.parameters = [
            "members added": "\(members.count)", "members online": options.membersOnline ? "all" : "none",
        ]
        report.sent = members.count
        report.durationSeconds = (ContinuousClock.now - start).seconds
        report.throughput = Double(members.count) / max(report.durationSeconds, 0.001)
        report.latencyMs = latency.percentilesMs
        report.figures["time to add all (s)"] = report.durationSeconds
        if let cpuBefore, let cpuAfter = server?.cpuSeconds {
            report.figures["server CPU per addition (ms)"] = (cpuAfter - cpuBefore) / Double(members.count) * 1000
        }
        let detail: ConversationDetail = try await client.api.call(.getConversation, [group], token: owner.token)
        report.deliveries = detail.members.count - 1
        report.expectedDeliveries = members.count
        report.lost = max(0, members.count - report.deliveries)
        for socket in sockets {
            report.errors += socket.errors.count
            await socket.close()
        }
        return report
    }

    /// A storm of logins (16 at a time), each followed by the first sync page a client asks
    /// for (`--sync-page` conversations), by `--users` users who each already have
    /// `--conversations` direct conversations with a message in each. Measures until that
    /// first page is in hand: what a user waits for before the chat list shows.
    static func login(_ options: BenchOptions, _ client: BenchClient, _ server: ServerProcess?) async throws
        -> BenchReport
    {
        let accounts = try await client.createUsers(max(1, options.users), role: "l")
        if options.conversationsPerUser > 0 {
            let partners = try await client.createUsers(options.conversationsPerUser, role: "p")
            let pairs = accounts.flatMap { account in partners.map { (account, $0) } }
            try await forEach(pairs, concurrently: 8) { account, partner in
                let _: SendMessageResponse = try await client.api.call(
                    .sendMessage,
                    body: SendMessageRequest(
                        toUserId: partner.id, clientMsgId: "hello-\(partner.id)", kind: .text,
                        content: ["text": "hello"]), token: account.token)
            }
        }
        let count = max(1, options.messages)
        let latency = LatencyRecorder()
        let synced = Atomic<Int>(0)
        let cpuBefore = server?.cpuSeconds
        let start = ContinuousClock.now
        try await forEach(Array(0..<count), concurrently: 16) { number in
            let account = accounts[number % accounts.count]
            let began = ContinuousClock.now
            let tokens: TokenResponse = try await client.api.call(
                .login, body: LoginRequest(login: account.username, password: "Bench-pass-1", device: "storm"))
            if options.conversationsPerUser > 0 {
                let page: SyncResponse = try await client.api.call(
                    .sync, query: ["limit": "\(options.syncPage)"], token: tokens.accessToken)
                synced.add(page.conversations.count, ordering: .relaxed)
            }
            latency.record(microseconds: (ContinuousClock.now - began).microseconds)
        }
        var report = BenchReport(scenario: "login")
        report.parameters = [
            "logins": "\(count)", "concurrency": "16", "users": "\(accounts.count)",
            "conversations each": "\(options.conversationsPerUser)",
        ]
        if options.conversationsPerUser > 0 { report.parameters["first sync page"] = "\(options.syncPage)" }
        report.sent = count
        report.durationSeconds = (ContinuousClock.now - start).seconds
        report.throughput = Double(count) / max(report.durationSeconds, 0.001)
        report.latencyMs = latency.percentilesMs
        if options.conversationsPerUser > 0 {
            report.figures["conversations in the first page"] =
                Double(synced.load(ordering: .relaxed)) / Double(count)
        }
        if let cpuBefore, let cpuAfter = server?.cpuSeconds {
            report.figures["server CPU per login (ms)"] = (cpuAfter - cpuBefore) / Double(count) * 1000
        }
        return report
    }

    /// Runs `body` for each item, at most `width` at a time.
    private static func forEach<Item: Sendable>(
        _ items: [Item], concurrently width: Int, _ body: @escaping @Sendable (Item) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            for _ in 0..<min(width, items.count) {
                let item = items[next]
                next += 1
                group.addTask { try await body(item) }
            }
            while try await group.next() != nil, next < items.count {
                let item = items[next]
                next += 1
                group.addTask { try await body(item) }
            }
        }
    }
}
