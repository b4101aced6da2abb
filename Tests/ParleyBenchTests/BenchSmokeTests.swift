import ParleyBench
import ParleyTesting
import Testing

/// Proves the load tool works end to end: every scenario at a tiny size against a real
/// in-process server, with exactly-once, in-order delivery asserted. No time is asserted;
/// figures come from `parley bench` runs (BENCHMARKS.md).
@Suite(.serialized) struct BenchSmokeTests {
    @Test(arguments: BenchScenario.allCases)
    func scenarioRunsAndDeliversEveryMessageOnceInOrder(_ scenario: BenchScenario) async throws {
        let server = try await InProcessServer.start()
        var options = BenchOptions()
        options.server = server.url
        options.users = 4
        options.rate = 100
        options.duration = 0.5
        options.groupSize = 4
        options.messages = 60
        options.connections = 20
        options.p99BoundMs = 10_000
        options.rampSteps = 3
        let reports = try await scenario.run(options)
        #expect(!reports.isEmpty)
        for report in reports {
            #expect(report.exactlyOnceInOrder, "\(report.scenario): \(report.lost) lost, \(report.duplicates) twice, \(report.outOfOrder) out of order")
            if report.expectedDeliveries > 0 { #expect(report.deliveries == report.expectedDeliveries) }
        }
        if scenario == .ramp {
            #expect(reports.count == 4, "three steps held and the summary")
            #expect(reports.last?.figures["highest rate held (msg/s)"] == 225)
        }
        await server.stop()
    }
}
