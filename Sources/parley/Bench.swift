import ArgumentParser
import Foundation
import ParleyBench

/// `parley bench <scenario>`: load a running server over its real protocol and report.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure a running server: idle, direct, ramp, group, grow, catchup, login, search or upload.",
        discussion:
            "Creates its own users (start the server with --bcrypt-cost 4 for large user counts), checks that every message arrives exactly once and in order, and reports latency percentiles from the scheduled send time."
    )

    @Argument(help: "idle | direct | ramp | group | grow | catchup | login | search | upload") var scenario: String
    @Option(
        help:
            "Server URL; give it once per node of a PostgreSQL cluster: accounts are made through the first, and sockets are spread over all."
    )
    var server: [String] = ["http://127.0.0.1:8080"]
    @Option(
        help:
            "Users (direct/ramp: online, in pairs = users / 2 unless partners are random; idle: accounts the connections share; login: accounts the logins cycle through)."
    ) var users = 10
    @Option(
        help:
            "direct/ramp: 'existing' (fixed pairs, one conversation each) or 'random' (a random partner per message, opening conversations)."
    )
    var partners = "existing"
    @Option(help: "grow: 'all' (every member's socket open while the group grows) or 'none' (offline members).")
    var online = "all"
    @Option(help: "login: direct conversations, with a message each, every user has before the storm.")
    var conversations = 0
    @Option(help: "login: the limit of the first sync page each login fetches (with --conversations).")
    var syncPage = 200
    @Option(help: "Messages per second (group: sent by one member; ramp: the first step).") var rate = 1000.0
    @Option(help: "Seconds of load per run (idle: seconds to hold).") var duration = 10.0
    @Option(help: "Message size in bytes.") var size = 100
    @Option(help: "group: members of the group; grow: members added one at a time.") var groupSize = 50
    @Option(help: "catchup: messages missed; login: logins; search: messages stored.") var messages = 10_000
    @Option(help: "idle: connections to hold open.") var connections = 1000
    @Option(help: "ramp: the p99 bound in milliseconds.") var p99 = 50.0
    @Option(help: "ramp: the most steps.") var rampSteps = 12
    @Option(help: "Seed for the user names, to repeat a run on a fresh server (default: random).") var seed: UInt64?
    @Option(help: "PID of the server, to read its CPU time and memory from /proc; once per node, to add them up.")
    var serverPid: [Int32] = []
    @Option(help: "search: a shell command to run between seeding and the queries (e.g. scripts/copy-messages.sh).")
    var beforeQueries: String?
    @Option(help: "upload: file sizes in MiB, comma-separated (20 files of each size below 100, 3 of larger).")
    var fileMib = "1,100"
    @Flag(
        help: "direct/ramp/group: every recipient marks each message delivered (a `delivered` frame), as the SDK does.")
    var receipts = false
    @Flag(help: "Print JSON instead of a table.") var json = false
    @Flag(help: "Exit non-zero unless every message arrived exactly once and in order.") var requireExactlyOnce = false

    func run() async throws {
        guard let which = BenchScenario(rawValue: scenario) else {
            throw ValidationError(
                "Unknown scenario '\(scenario)'; use one of \(BenchScenario.allCases.map(\.rawValue).joined(separator: ", "))."
            )
        }
        var options = BenchOptions()
        options.servers = server
        options.users = users
        options.rate = rate
        options.duration = duration
        options.messageSize = size
        options.groupSize = max(2, groupSize)
        options.messages = messages
        options.connections = connections
        options.p99BoundMs = p99
        options.rampSteps = rampSteps
        options.seed = seed
        guard ["existing", "random"].contains(partners) else {
            throw ValidationError("--partners takes 'existing' or 'random'; not '\(partners)'.")
        }
        options.randomPartners = partners == "random"
        options.receipts = receipts
        guard ["all", "none"].contains(online) else {
            throw ValidationError("--online takes 'all' or 'none'; not '\(online)'.")
        }
        options.membersOnline = online == "all"
        options.conversationsPerUser = max(0, conversations)
        guard (1...500).contains(syncPage) else { throw ValidationError("--sync-page takes 1 to 500.") }
        options.syncPage = syncPage
        options.serverPIDs = serverPid
        options.beforeQueries = beforeQueries
        options.fileSizesMiB = try fileMib.split(separator: ",").map {
            guard let size = Int($0.trimmingCharacters(in: .whitespaces)), (1...4_096).contains(size) else {
                throw ValidationError("--file-mib takes sizes of 1 to 4096 MiB, comma-separated; not '\(fileMib)'.")
            }
            return size
        }
        let reports = try await which.run(options)
        if json {
            print(try BenchReport.json(reports))
        } else {
            for report in reports { print(report.table) }
        }
        if requireExactlyOnce, let bad = BenchReport.firstDeliveryFault(in: reports) {
            throw CLIError(
                "\(bad.scenario): \(bad.lost) lost, \(bad.duplicates) duplicated, \(bad.outOfOrder) out of order.")
        }
    }
}
