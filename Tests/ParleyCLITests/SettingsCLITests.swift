import Foundation
import ParleyTesting
import Testing

@testable import parley

/// `parley pin|mute|hide …` and how `parley conversations` shows them.
extension CLITests {
    @Test func pinnedConversationsListFirstMutedOnesSaySoAndHiddenOnesComeBackWithANewMessage() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        try await bob.succeed(["send", "alice", "hi"])
        try await alice.succeed(["group", "create", "team", "bob"])
        try await alice.succeed(["group", "create", "side", "bob"])
        /// Each line's title and marks, without the id, the unread count and the last message.
        func ids() async throws -> [String] {
            try await alice.succeed(["conversations"]).split(separator: "\n").compactMap { line in
                guard let field = line.split(separator: "\t").dropFirst().first else { return nil }
                let title = field.components(separatedBy: " — ")[0]
                return title.replacingOccurrences(of: #" \(\d+ unread\)"#, with: "", options: .regularExpression)
            }
        }
        #expect(try await ids() == ["#side", "#team", "@bob"])

        #expect(try await alice.succeed(["pin", "team"]) == "Pinned #team.\n")
        #expect(try await alice.succeed(["mute", "@bob"]) == "Muted @bob.\n")
        #expect(try await alice.succeed(["pin", "bob"]) == "Pinned @bob.\n")
        #expect(try await ids() == ["📌 #team", "📌 @bob (muted)", "#side"], "pinned first, in the order pinned")

        #expect(try await alice.succeed(["unpin", "team"]) == "Unpinned #team.\n")
        #expect(try await alice.succeed(["unmute", "bob"]) == "Unmuted @bob.\n")
        #expect(try await alice.succeed(["hide", "side"]) == "Hid #side. It comes back with the next message.\n")
        #expect(try await ids() == ["📌 @bob", "#team"])
        try await bob.succeed(["send", "side", "back?"])
        #expect(try await ids() == ["📌 @bob", "#side", "#team"])
        #expect(try await alice.succeed(["conversations"]).contains("— back?"))

        let unknown = try await alice.run(["mute", "nobody"])
        #expect(unknown.status != 0)
        await server.stop()
    }
}
