import Foundation
import ParleyBench
import ParleyCore
import ParleyTesting
import Testing

/// Proves the load tool works end to end: every scenario at a tiny size against a real
/// in-process server, with exactly-once, in-order delivery asserted. No time is asserted;
/// figures come from `parley bench` runs (BENCHMARKS.md).
@Suite(.serialized) struct BenchSmokeTests {
    @Test(arguments: BenchScenario.allCases.filter { $0 != .ramp })
    func scenarioRunsAndDeliversEveryMessageOnceInOrder(_ scenario: BenchScenario) async throws {
        let server = try await InProcessServer.start()
        let reports = try await scenario.run(Self.tinyOptions(server))
        #expect(reports.count == 1)
        for report in reports {
            #expect(
                report.exactlyOnceInOrder,
                "\(report.scenario): \(report.lost) lost, \(report.duplicates) twice, \(report.outOfOrder) out of order"
            )
            if report.expectedDeliveries > 0 { #expect(report.deliveries == report.expectedDeliveries) }
            if scenario == .upload {
                #expect((report.figures["1 MiB: MiB/s"] ?? 0) > 0 && report.sent == 20, "\(report.figures)")
            }
        }
        await server.stop()
    }

    /// The shapes of issue 18: random partners open a conversation with nearly every message
    /// (each still delivered once, in order); a login fetches a first page holding the user's
    /// conversations; a group grows with its members offline.
    @Test func randomPartnersLoginsWithConversationsAndOfflineGrowthRun() async throws {
        let server = try await InProcessServer.start()
        var options = Self.tinyOptions(server)
        options.users = 6
        options.randomPartners = true
        let direct = try #require(try await BenchScenario.direct.run(options).first)
        #expect(direct.exactlyOnceInOrder && direct.deliveries == direct.sent && direct.sent == 50)
        #expect(direct.parameters["partners"] == "random")

        options.users = 2
        options.conversationsPerUser = 3
        options.messages = 8
        let login = try #require(try await BenchScenario.login.run(options).first)
        #expect(login.sent == 8)
        #expect(login.figures["conversations in the first page"] == 3, "\(login.figures)")

        options.membersOnline = false
        options.groupSize = 5
        let grow = try #require(try await BenchScenario.grow.run(options).first)
        #expect(grow.deliveries == 5 && grow.lost == 0, "every member added is in the group")
        #expect(grow.parameters["members online"] == "none")
        await server.stop()
    }

    /// With receipts, every recipient marks each message delivered (1:1 and in a group): the
    /// server answers one mark per delivery, and the marks' answers do not pass for sends'
    /// acknowledgements.
    @Test func receiptsMarkEveryDeliveryAndAreNoSendsAcknowledgement() async throws {
        let server = try await InProcessServer.start()
        var options = Self.tinyOptions(server)
        options.receipts = true
        let direct = try #require(try await BenchScenario.direct.run(options).first)
        #expect(direct.exactlyOnceInOrder && direct.deliveries == direct.sent)
        #expect(direct.acknowledged == direct.sent && direct.errors == 0, "\(direct.firstError ?? "")")
        #expect(direct.figures["delivery marks answered"] == Double(direct.deliveries))
        #expect(direct.parameters["receipts"] == "on")
        let group = try #require(try await BenchScenario.group.run(options).first)
        #expect(group.exactlyOnceInOrder && group.errors == 0, "\(group.firstError ?? "")")
        #expect(group.figures["delivery marks answered"] == Double(group.deliveries))
        await server.stop()
    }

    /// The search scenario stores what it sends, then answers each kind of query.
    @Test func searchStoresEveryMessageAndReportsEachKindOfQuery() async throws {
        let server = try await InProcessServer.start()
        var options = Self.tinyOptions(server)
        options.messages = 200
        // A command to run between seeding and the queries (a copy of the stored messages).
        let marker = URL(fileURLWithPath: temporaryPath("search-bench"))
        defer { try? FileManager.default.removeItem(at: marker) }
        options.beforeQueries = "echo ran > '\(marker.path)'"
        let report = try #require(try await BenchScenario.search.run(options).first)
        #expect(try String(contentsOf: marker, encoding: .utf8) == "ran\n")
        #expect(report.parameters["before queries"] == options.beforeQueries)
        #expect(report.acknowledged == 200)
        #expect((report.figures["hits per query"] ?? 0) > 1, "\(report.figures)")
        #expect(report.figures["Chinese, 1 character p99 (ms)"] != nil, "\(report.figures)")

        // A command that fails stops the run before any query: its figures would mislead.
        options.messages = 10
        options.beforeQueries = "exit 3"
        let error = await #expect(throws: ParleyError.self) { try await BenchScenario.search.run(options) }
        #expect(error?.message.contains("exited with 3") == true)
        await server.stop()
    }

    /// How far the ramp gets depends on the machine (a debug build sharing two cores with other
    /// suites), so what is checked is that no step duplicated or reordered a message and only
    /// the step where it stopped lost any, and that the summary names the rate of the last
    /// step held.
    @Test func rampReportsTheHighestRateAtWhichEveryMessageArrivedOnceInOrder() async throws {
        let server = try await InProcessServer.start()
        var options = Self.tinyOptions(server)
        options.rate = 20
        let reports = try await BenchScenario.ramp.run(options)
        let fault = BenchReport.firstDeliveryFault(in: reports)
        #expect(
            fault == nil,
            "\(fault?.scenario ?? ""): \(fault?.lost ?? 0) lost, \(fault?.duplicates ?? 0) twice, \(fault?.outOfOrder ?? 0) out of order"
        )
        let held = reports.dropLast().filter { $0.figures["held"] == 1 }
        let rates = [0.0, 20, 30, 45]
        #expect(reports.last?.figures["highest rate held (msg/s)"] == rates[held.count])
        await server.stop()
    }

    /// Receivers that never ping are closed by the server's heartbeat sweep mid-run: the
    /// report must show the loss, what the server committed (more deliveries are missing
    /// than uncommitted messages explain, so the loss happened after the commit), and the
    /// close that caused it. The sender, silent only between sends, may be closed too on a
    /// machine that starves it for the whole timeout, so not every message need be committed.
    @Test func aLossAfterTheCommitIsReportedWithWhatTheServerCommittedAndWhy() async throws {
        let server = try await InProcessServer.start { $0.heartbeatTimeout = .seconds(2) }
        var options = Self.tinyOptions(server)
        options.rate = 10
        options.duration = 5
        // Deliveries are lost here, so the run waits out the window; it must be long enough for
        // every send to commit on a loaded machine (CI's PostgreSQL run), since that is checked.
        options.drainTimeout = .seconds(30)
        let report = try #require(try await BenchScenario.group.run(options).first)
        let committed = try #require(report.committed, "the report says what the server committed")
        #expect(committed >= (try #require(report.acknowledged)), "an acknowledged send is a committed one")
        #expect(committed <= report.sent)
        #expect(report.lost > (report.sent - committed) * (options.groupSize - 1))
        #expect(report.errors >= 3, "each silent receiver closed (the sender too, once it stops sending)")
        #expect(report.firstError?.contains("4004") == true, "\(report.firstError ?? "no error")")
        await server.stop()
    }

    private static func tinyOptions(_ server: InProcessServer) -> BenchOptions {
        var options = BenchOptions()
        options.servers = [server.url]
        options.users = 4
        options.rate = 100
        options.duration = 0.5
        options.groupSize = 4
        options.messages = 60
        options.connections = 20
        options.p99BoundMs = 10_000
        options.rampSteps = 3
        options.fileSizesMiB = [1]
        // What is checked is exactly-once delivery, not speed: on a machine shared with other
        // suites (CI's PostgreSQL run) a tiny run may take far longer than 10 s to drain.
        options.drainTimeout = .seconds(120)
        return options
    }
}
