import Foundation
import ParleyTesting
import Testing

/// `parley search`.
extension CLITests {
    @Test func searchFindsMessagesOnTheServerAndOnTheDevice() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        _ = try await alice.succeed(["send", "bob", "明天去北京吗？"])
        _ = try await alice.succeed(["send", "bob", "the Crème brûlée was great"])
        _ = try await alice.succeed(["send", "bob", "see the menu"])
        let found = try await bob.succeed(["search", "北京"])
        #expect(found.hasSuffix("@alice @alice: 明天去«北京»吗？\n"), "\(found)")
        #expect(try await bob.succeed(["search", "creme", "BRULEE"]).contains("the «Crème» «brûlée» was great"))
        #expect(try await bob.succeed(["search", "creme", "--from", "bob"]) == "No message found.\n")
        #expect(try await bob.succeed(["search", "creme", "--in", "alice"]).contains("«Crème»"))
        #expect(try await bob.succeed(["search", "creme", "--since", "2999-01-01"]) == "No message found.\n")
        #expect(try await bob.succeed(["search", "--local", "北京"]).contains("«北京»"))
        let paged = try await bob.succeed(["search", "e", "--limit", "1"])
        #expect(paged.hasSuffix("… more: add --all\n"), "\(paged)")
        #expect(try await bob.succeed(["search", "e", "--limit", "1", "--all"]).split(separator: "\n").count == 2)
        let noWords = try await bob.run(["search"])
        #expect(noWords.status != 0 && noWords.errors.contains("Missing expected argument '<words> ...'"), "\(noWords)")
        let blank = try await bob.run(["search", "  "])
        #expect(blank.status != 0 && blank.errors.contains("something to search for"), "\(blank)")
        let badDay = try await bob.run(["search", "x", "--since", "yesterday"])
        #expect(badDay.status != 0 && badDay.errors.contains("YYYY-MM-DD"), "\(badDay)")
        let stranger = try await bob.run(["search", "x", "--in", "nobody-here"])
        #expect(stranger.status != 0, "\(stranger)")
        await server.stop()
    }

    @Test func searchFindsFriendsAndGroupsByName() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        _ = try await alice.succeed(["friend", "add", "bob"])
        _ = try await bob.succeed(["friend", "accept", "alice"])
        _ = try await alice.succeed(["friend", "remark", "bob", "Bobby Tables"])
        #expect(try await alice.succeed(["search", "--contacts", "TABLES"]) == "Bobby «Tables» (@bob, bob)\n")
        #expect(try await alice.succeed(["search", "--contacts", "bo"]) == "«Bo»bby Tables (@«bo»b, «bo»b)\n")
        #expect(try await alice.succeed(["search", "--contacts", "carol"]) == "No friend found.\n")
        _ = try await alice.succeed(["group", "create", "周末爬山", "bob"])
        #expect(try await alice.succeed(["search", "--groups", "爬山"]) == "#周末«爬山» (2 members)\n")
        #expect(try await alice.succeed(["search", "--groups", "BOB"]) == "#周末爬山 (2 members)\n    «bob» @«bob»\n")
        #expect(try await bob.succeed(["search", "--groups", "missing"]) == "No group found.\n")
        let both = try await alice.run(["search", "--contacts", "--groups", "x"])
        #expect(both.status != 0 && both.errors.contains("not both"), "\(both)")
        await server.stop()
    }
}
