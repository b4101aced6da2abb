import Foundation
import ParleyCore

/// `parley bench search`: message search over `messages` stored messages. Ten senders, one
/// socket each, fill ten groups (the searcher is in five of them, so half of what matches is
/// another team's and must be skipped) with sentences drawn from English, Chinese and
/// Japanese words; then
/// the searcher runs each query of ``queries`` `rounds` times, one at a time, and the report
/// gives the latency of all of them and of each kind of query.
enum SearchBench {
    /// The words sentences are made of; ``rare`` appears once in ten thousand messages.
    static let english = [
        "meeting", "project", "release", "budget", "review", "coffee", "launch", "design", "server", "client",
        "tomorrow", "report", "deadline", "customer", "invoice", "holiday", "travel", "update", "question", "answer",
    ]
    static let chinese = ["北京", "上海", "会议", "项目", "发布", "明天", "预算", "客户", "报告", "咖啡", "设计", "服务器"]
    static let japanese = ["東京", "会議", "明日", "予算", "報告", "タワー", "お疲れ様です", "よろしく", "確認", "出張"]
    static let rare = "xylophone"

    /// The queries, by kind: what the report's per-kind latency figures are named after.
    static let queries: [(kind: String, text: String)] = [
        ("common word", "meeting"), ("two words", "project release"), ("rare word", rare),
        ("no match", "zebracorn"), ("Chinese, 2 characters", "北京"), ("Chinese, 1 character", "会"),
        ("Chinese, 4 characters", "北京会议"), ("Japanese", "お疲れ様"), ("short Latin", "qu"),
        ("short, no match", "zq"),
    ]

    /// The `number`th sentence: six to ten words from the three vocabularies, deterministic.
    static func sentence(_ number: Int) -> String {
        // A linear congruential sequence seeded by the number (Knuth's MMIX constants).
        var state = UInt64(number) &* 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var words: [String] = []
        for _ in 0..<(6 + next(5)) {
            switch next(4) {
            case 0: words.append(chinese[next(chinese.count)])
            case 1: words.append(japanese[next(japanese.count)])
            default: words.append(english[next(english.count)])
            }
        }
        if number % 10_000 == 7 { words.append(rare) }
        return words.joined(separator: " ")
    }

    /// The groups the messages are spread over; the searcher is in the first half.
    static let groupCount = 10

    static func run(_ options: BenchOptions, _ client: BenchClient, _ server: ServerProcess?, rounds: Int = 20)
        async throws -> BenchReport
    {
        var report = BenchReport(scenario: "search")
        // Ten groups, each with a sender of its own, so that ten sockets seed at once.
        let accounts = try await client.createUsers(2 + groupCount, role: "s")
        let (searcher, outsider, senders) = (accounts[0], accounts[1], Array(accounts[2...]))
        var groups: [ConversationID] = []
        for (index, sender) in senders.enumerated() {
            groups.append(
                try await client.createGroup(owner: sender, members: index < groupCount / 2 ? [searcher] : [outsider]))
        }
        let clock = BenchClock()
        var sockets: [BenchSocket] = []
        for sender in senders { sockets.append(try await BenchSocket.open(client, token: sender.token, clock: clock)) }
        let seedingStarted = ContinuousClock.now
        let total = options.messages
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (index, socket) in sockets.enumerated() {
                let group = groups[index]
                tasks.addTask {
                    // Message `number` goes to group `number % groupCount`: each group gets the
                    // sentences it would get from one sender filling the groups in turn.
                    for (sent, number) in stride(from: index, to: total, by: groupCount).enumerated() {
                        try await socket.send(
                            .send,
                            SendMessageRequest(
                                conversationId: group, clientMsgId: "s\(number)", kind: .text,
                                content: ["text": .string(sentence(number))]),
                            id: "s\(number)")
                        // Stay a bounded distance ahead of the acknowledgements, so the
                        // server's queue for this socket never overflows.
                        while sent - socket.acknowledgements > 500 { try await Task.sleep(for: .milliseconds(2)) }
                    }
                }
            }
            try await tasks.waitForAll()
        }
        let acknowledged = { sockets.reduce(0) { $0 + $1.acknowledgements } }
        let deadline = ContinuousClock.now + .seconds(600)
        while acknowledged() < total, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let seeding = (ContinuousClock.now - seedingStarted).seconds
        report.acknowledged = acknowledged()
        for socket in sockets { await socket.close() }
        if let command = options.beforeQueries {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw ParleyError(
                    .invalidField, "--before-queries '\(command)' exited with \(process.terminationStatus).")
            }
            report.parameters["before queries"] = command
        }

        let all = LatencyRecorder()
        let cpuBefore = server?.cpuSeconds
        let started = ContinuousClock.now
        var hits = 0
        for (kind, text) in queries {
            let recorder = LatencyRecorder()
            let parameters = Dictionary(
                uniqueKeysWithValues: try MessageSearchQuery(text).parameters.map { ($0.name, $0.value) })
            for _ in 0..<rounds {
                let began = ContinuousClock.now
                let page: MessageSearchPage = try await client.api.call(
                    .searchMessages, query: parameters, token: searcher.token)
                let microseconds = (ContinuousClock.now - began).microseconds
                recorder.record(microseconds: microseconds)
                all.record(microseconds: microseconds)
                hits += page.hits.count
            }
            for (percentile, value) in recorder.percentilesMs where percentile == "p50" || percentile == "p99" {
                report.figures["\(kind) \(percentile) (ms)"] = value
            }
        }
        let queriesRun = queries.count * rounds
        report.parameters["stored messages"] = "\(options.messages)"
        report.parameters["queries"] = "\(queriesRun)"
        report.parameters["searcher's share"] = "half the messages"
        report.sent = options.messages
        report.durationSeconds = (ContinuousClock.now - started).seconds
        report.throughput = Double(queriesRun) / max(report.durationSeconds, 0.001)
        report.latencyMs = all.percentilesMs
        report.figures["seeding (msg/s)"] = Double(options.messages) / max(seeding, 0.001)
        report.figures["hits per query"] = Double(hits) / Double(queriesRun)
        if let cpuBefore, let cpuAfter = server?.cpuSeconds {
            report.figures["server CPU per query (ms)"] = (cpuAfter - cpuBefore) / Double(queriesRun) * 1000
        }
        return report
    }
}
