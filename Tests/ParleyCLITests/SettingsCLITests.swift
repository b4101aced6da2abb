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

/// `parley profile` shows a profile and `parley profile set` changes yours.
extension CLITests {
    @Test func profileSetChangesYourDetailsAndProfileShowsThemToOthers() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        let saved = try await alice.succeed([
            "profile", "set", "--nickname", "Alice", "--signature", "plant lover", "--gender", "female", "--birthday",
            "1991-07-04", "--region", "CN-GD",
        ])
        #expect(saved.contains("Profile saved:\nAlice (@alice, id "))
        let seen = try await bob.succeed(["profile", "alice"])
        #expect(
            seen.hasSuffix("signature: plant lover\ngender:    female\nbirthday:  1991-07-04\nregion:    CN-GD\n"),
            "\(seen)")
        #expect(!seen.contains("email"), "another user's private fields are not shown")
        _ = try await alice.succeed(["profile", "set", "--region", ""])
        #expect(try await alice.succeed(["profile"]).contains("region") == false)
        let refused = try await alice.run(["profile", "set", "--birthday", "1991-02-30"])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("Birthday must be a date written YYYY-MM-DD"), "\(refused.errors)")
        let nothing = try await alice.run(["profile", "set"])
        #expect(nothing.status != 0)

        // An avatar from a file: uploaded (or found by hash), then shown by its id.
        let folder = temporaryDirectory("parley-avatar")
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<2000).map { UInt8($0 % 251) }
        try Data(png).write(to: URL(fileURLWithPath: folder + "/me.png"))
        let withAvatar = try await alice.succeed(["profile", "set", "--avatar", folder + "/me.png"])
        let avatarId = try #require(
            withAvatar.split(separator: "\n").first { $0.hasPrefix("avatar:") }?.split(separator: " ").last)
        #expect(avatarId.count == 24, "\(withAvatar)")
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        let notImage = try await alice.run(["profile", "set", "--avatar", folder + "/notes.txt"])
        #expect(notImage.status != 0 && notImage.errors.contains("image"), "\(notImage)")
        await server.stop()
    }
}

/// `parley search-user` and `parley privacy`.
extension CLITests {
    @Test func searchUserFindsPeopleUntilTheyHideAndPrivacyShowsAndChangesTheSettings() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        _ = try await bob.succeed(["profile", "set", "--nickname", "Bobby Tables", "--signature", "hi"])
        let found = try await alice.succeed(["search-user", "TABLE"])
        #expect(found.hasPrefix("Bobby Tables (@bob, id "), "\(found)")
        #expect(found.hasSuffix(" — hi\n"))
        #expect(try await alice.succeed(["search-user", "--username", "BOB"]).hasPrefix("Bobby Tables (@bob"))
        #expect(try await alice.succeed(["search-user", "nobody-like-this"]) == "Nobody found.\n")

        let settings = try await bob.succeed(["privacy", "--find-by-nickname", "nobody"])
        #expect(settings.contains("find by nickname: nobody") && settings.contains("find by username: everyone"))
        #expect(try await bob.succeed(["privacy"]) == settings, "shown as set")
        #expect(try await alice.succeed(["search-user", "TABLE"]) == "Nobody found.\n")
        let wrong = try await bob.run(["privacy", "--find-by-email", "friends"])
        #expect(wrong.status != 0)
        let both = try await alice.run(["search-user", "bob", "--email", "bob@example.com"])
        #expect(both.status != 0)
        await server.stop()
    }
}
