import Foundation
import ParleyCore
import Testing

@testable import ParleyBench

/// What `parley bench --require-exactly-once` and `--json` rest on, and the /proc reading
/// behind the server CPU and memory figures.
struct BenchReportTests {
    static func report(_ name: String, lost: Int = 0, duplicates: Int = 0, outOfOrder: Int = 0, held: Double? = nil)
        -> BenchReport
    {
        var report = BenchReport(scenario: name)
        report.lost = lost
        report.duplicates = duplicates
        report.outOfOrder = outOfOrder
        report.figures["held"] = held
        return report
    }

    @Test func aRampMayLoseOnlyInTheStepWhereItStoppedButNeverDuplicateOrReorder() {
        let clean = [Self.report("step 1", held: 1), Self.report("step 2", lost: 7, held: 0)]
        #expect(BenchReport.firstDeliveryFault(in: clean) == nil)
        #expect(BenchReport.firstDeliveryFault(in: [Self.report("direct", lost: 1)])?.scenario == "direct")
        #expect(
            BenchReport.firstDeliveryFault(in: [
                Self.report("step 1", held: 1), Self.report("step 2", duplicates: 1, held: 0),
            ])?.scenario == "step 2")
        #expect(
            BenchReport.firstDeliveryFault(in: [Self.report("step 2", outOfOrder: 1, held: 0)])?.scenario == "step 2")
    }

    @Test func reportsRoundTripThroughTheirJSON() throws {
        var report = Self.report("direct", lost: 2, held: 1)
        report.latencyMs = ["p99": 5.5]
        report.committed = 40
        let decoded = try JSONDecoder().decode(
            [BenchReport].self, from: Data(try BenchReport.json([report, report]).utf8))
        #expect(decoded.count == 2)
        #expect(decoded.first?.lost == 2 && decoded.first?.latencyMs == ["p99": 5.5] && decoded.first?.committed == 40)
    }

    @Test func aSeedFixesTheUserNamesAndNoSeedVariesThem() {
        func runID(_ seed: UInt64?) -> String { BenchClient(servers: ["http://x"], seed: seed).runID }
        #expect(runID(42) == runID(42))
        #expect(runID(42) != runID(43))
        #expect(runID(nil) != runID(nil))
    }

    /// Sockets spread over every node given, in turn, whichever copy of the client opens them.
    @Test func socketsGoToEachNodeInTurn() {
        let client = BenchClient(servers: ["http://a:1", "http://b:2"], seed: 1)
        let copy = client
        let urls = [client.nextWebSocketURL(), copy.nextWebSocketURL(), client.nextWebSocketURL()]
        #expect(urls == ["ws://a:1/v1/ws", "ws://b:2/v1/ws", "ws://a:1/v1/ws"])
    }

    @Test func procOfThisProcessGivesCPUTimeAndResidentMemory() throws {
        let process = ServerProcess(pids: [getpid()])
        #expect(try #require(process.residentKiB) > 1024)
        #expect(try #require(process.cpuSeconds) >= 0)
    }

    /// A stall reads differently at a run's start (warm-up) than in its middle (a disk's
    /// fsync, a checkpoint): the report says when the slowest message was due.
    @Test func theReportSaysWhenTheSlowestMessageWasDue() {
        let tracker = DeliveryTracker(expectedRecipients: 1)
        for (seq, due, arrived) in [(1, 1_000_000, 1_002_000), (2, 2_500_000, 2_900_000), (3, 3_000_000, 3_001_000)] {
            let message = Message(
                id: MessageID(Int64(seq)), conversationId: ConversationID(1), seq: Int64(seq), senderId: UserID(1),
                clientMsgId: "c\(seq)", kind: .text, content: .object(["t": .number(.integer(Int64(due)))]), sentAt: 0)
            tracker.record(recipient: 2, message: message, arrival: .microseconds(arrived))
        }
        var report = BenchReport(scenario: "direct")
        tracker.fill(&report, sent: 3)
        #expect(report.figures["slowest sent at (s)"] == 2.5)
    }
}
