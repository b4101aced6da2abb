import Foundation
import ParleyTesting
import Testing

/// `parley friends`, `parley friend …`, `parley block` and `parley unblock`.
extension CLITests {
    @Test func friendsAreAddedAnsweredRemarkedRemovedAndBlockedFromTheCommandLine() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        let asked = try await alice.succeed(["friend", "add", "bob", "--message", "it's Alice"])
        #expect(asked.hasPrefix("Asked bob (@bob, id ") && asked.contains("request #"), "\(asked)")
        let inbox = try await bob.succeed(["friends"])
        #expect(inbox.contains("No friends yet."), "\(inbox)")
        #expect(inbox.contains("from alice (@alice, id ") && inbox.contains(": “it's Alice”"), "\(inbox)")
        #expect(try await alice.succeed(["friends"]).contains("Your requests waiting for an answer:"))
        #expect(try await alice.succeed(["friends", "--suggestions"]).hasSuffix("Nobody to suggest yet.\n"))

        let accepted = try await bob.succeed(["friend", "accept", "alice"])
        #expect(accepted.contains("from alice (@alice") && accepted.hasSuffix(": accepted.\n"), "\(accepted)")
        let remarked = try await alice.succeed(["friend", "remark", "bob", "Bobby"])
        #expect(remarked.hasPrefix("Bobby = bob (@bob"), "\(remarked)")
        let friends = try await alice.succeed(["friends"])
        #expect(friends.hasPrefix("Friends:\n  Bobby = bob (@bob, id "), "\(friends)")
        #expect(try await alice.succeed(["friend", "group", "create", "Work"]) == "Made the friend group Work.\n")
        _ = try await alice.succeed(["friend", "group", "create", "Chess"])
        #expect(
            try await alice.succeed(["friend", "group", "put", "bob", "Work", "Chess"]).hasSuffix(
                "is in Work, Chess.\n"))
        #expect(try await alice.succeed(["friend", "group", "rename", "Chess", "Go"]) == "Chess is now called Go.\n")
        #expect(try await alice.succeed(["friend", "group"]) == "Work: Bobby\nGo: Bobby\n")
        let grouped = try await alice.succeed(["friends"])
        #expect(grouped.contains("Bobby = bob (@bob, id ") && grouped.contains(") [Work, Go]\n"), "\(grouped)")
        #expect(try await alice.succeed(["friend", "group", "delete", "Go"]) == "Deleted the friend group Go.\n")
        let unknown = try await alice.run(["friend", "group", "put", "bob", "Nope"])
        #expect(unknown.status != 0 && unknown.errors.contains("You have no friend group called Nope"))
        let again = try await bob.run(["friend", "accept", "alice"])
        #expect(again.status != 0 && again.errors.contains("No friend request alice is waiting"), "\(again)")

        #expect(try await bob.succeed(["block", "alice"]).hasPrefix("Blocked alice (@alice"))
        let blockedView = try await bob.succeed(["friends"])
        #expect(blockedView.contains("No friends yet.") && blockedView.contains("Blocked:\n  alice (@alice"))
        let refused = try await alice.run(["friend", "add", "bob"])
        #expect(
            refused.status != 0 && refused.errors.contains("No user is called 'bob'."),
            "bob cannot be found by someone he blocked: \(refused)")
        let back = try await alice.run(["block", "bob"])
        #expect(back.status != 0 && back.errors.contains("No user is called 'bob'."), "\(back)")
        let bobProfile = try await bob.succeed(["profile"])
        let bobId = try #require(bobProfile.split(separator: ", id ").last?.prefix { $0.isNumber })
        #expect(try await alice.succeed(["block", String(bobId)]).hasPrefix("Blocked bob (@bob"), "by id it works")
        _ = try await alice.succeed(["unblock", "bob"])
        #expect(try await bob.succeed(["unblock", "alice"]).hasPrefix("Unblocked alice (@alice"))
        let notBlocked = try await bob.run(["unblock", "alice"])
        #expect(notBlocked.status != 0 && notBlocked.errors.contains("You have not blocked alice."))

        _ = try await alice.succeed(["friend", "add", "bob"])
        _ = try await bob.succeed(["friend", "accept", "alice"])
        #expect(try await alice.succeed(["friend", "remove", "bob"]).hasSuffix("is no longer your friend.\n"))
        #expect(try await bob.succeed(["friends"]).hasPrefix("No friends yet."))

        let settings = try await bob.succeed(["privacy", "--add-me", "anyone", "--message-from", "friends"])
        #expect(settings.contains("add me:           anyone") && settings.contains("message from:     friends"))
        #expect(try await alice.succeed(["friend", "add", "bob"]).hasPrefix("You and bob (@bob"))
        let carol = CLIUser(server: server.url)
        _ = try await carol.succeed(["register", "carol", "--password", Self.password])
        _ = try await carol.succeed(["friend", "add", "bob"])
        let suggested = try await alice.succeed(["friends", "--suggestions"])
        #expect(suggested.contains("People you may know:\n  carol (@carol, id "), "\(suggested)")
        #expect(suggested.hasSuffix(" — 1 mutual friend\n"), "\(suggested)")
        let wrong = try await bob.run(["privacy", "--add-me", "friends"])
        #expect(wrong.status != 0)
        await server.stop()
    }
}
