import Foundation
import ParleyTesting
import Testing

@testable import parley

/// `parley group …` end to end: several people at their terminals administer one group.
extension CLITests {
    @Test func adminsMuteKickAndAnnounceWhileMembersSeeItAndGetRefusedWithTheServersWords() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        let (carol, dave) = (CLIUser(server: server.url), CLIUser(server: server.url))
        try await carol.succeed(["register", "carol", "--password", Self.password])
        try await dave.succeed(["register", "dave", "--password", Self.password])
        try await alice.succeed(["group", "create", "team", "bob", "carol"])

        let chat = try carol.start(["chat", "team"])
        defer { chat.terminate() }
        try await chat.waitForOutput("(connected)")

        #expect(try await alice.succeed(["group", "admin", "team", "bob"]) == "bob is now an admin of #team.\n")
        let muted = try await bob.succeed(["group", "mute", "team", "carol", "2h"])
        #expect(muted.hasPrefix("Muted carol in #team until "), "\(muted)")
        try await chat.waitForOutput("* bob muted carol until")
        let silenced = try await carol.run(["send", "team", "hello?"])
        #expect(silenced.status != 0)
        #expect(silenced.errors.contains("You are muted in this group until "), "\(silenced)")
        let notRanked = try await carol.run(["group", "kick", "team", "bob"])
        #expect(notRanked.status != 0)
        #expect(notRanked.errors.contains("Only the owner can remove an admin"), "\(notRanked)")
        #expect(try await bob.succeed(["group", "mute", "team", "carol", "off"]) == "carol may send in #team again.\n")
        let badSpan = try await bob.run(["group", "mute", "team", "carol", "soon"])
        #expect(badSpan.errors.contains("'soon' is not a length of time"), "\(badSpan)")

        #expect(
            try await alice.succeed(["group", "announce", "team", "Launch", "on", "Friday"])
                == "Posted the announcement in #team.\n")
        try await chat.waitForOutput("* alice posted an announcement: Launch on Friday")
        #expect(try await alice.succeed(["group", "mute-all", "team", "on"]).contains("Only the owner and admins"))
        try await chat.waitForOutput("* alice muted everyone but admins")
        chat.type("/quit")
        #expect(try await chat.waitForExit() == 0)

        let info = try await carol.succeed(["group", "info", "team"])
        #expect(info.contains("Owner: alice"), "\(info)")
        #expect(info.contains("Sending: only the owner and admins (mute-all is on)"), "\(info)")
        #expect(info.contains("): Launch on Friday"), "\(info)")
        #expect(
            try await alice.succeed(["group", "members", "team"])
                == "alice — owner\nbob — admin\ncarol — member\n")
        let history = try await carol.succeed(["history", "team"])
        for line in ["* alice made bob an admin", "* bob unmuted carol", "* alice muted everyone but admins"] {
            #expect(history.contains("] \(line)"), "\(line): \(history)")
        }

        let code = try #require(
            try await alice.succeed(["group", "link", "team", "--max-uses", "1", "--expires", "1d"]).split(
                separator: "\n"
            ).first.map(String.init))
        #expect(try await dave.succeed(["group", "join", code]) == "Joined #team.\n")
        #expect(try await carol.succeed(["group", "join", code]) == "Joined #team.\n", "a member is simply in")

        #expect(try await alice.succeed(["group", "kick", "team", "carol"]) == "Removed carol from #team.\n")
        let usedUp = try await carol.run(["group", "join", code])
        #expect(usedUp.errors.contains("This invite link has been used up."), "\(usedUp)")
        #expect(try await carol.succeed(["conversations"]).contains("#team (left)"))
        #expect(try await carol.succeed(["group", "info", "team"]).contains("You were removed by alice."))
        // Lines without their times.
        func untimed(_ output: String) -> [String] {
            output.split(separator: "\n").map { String($0.split(separator: "] ", maxSplits: 1).last ?? $0) }
        }
        let kept = try await carol.succeed(["history", "team"])
        #expect(
            untimed(kept)
                == ["#team — 7 messages"] + untimed(history).dropFirst() + ["* dave joined", "* alice removed carol"],
            "what carol had stays, read-only, with what she missed up to her removal: \(kept)")
        let gone = try await carol.run(["send", "team", "still here?"])
        #expect(gone.status != 0)
        #expect(try await alice.succeed(["group", "members", "team"]).contains("dave — member"))

        #expect(try await alice.succeed(["group", "describe", "team", "We", "ship"]) == "Described #team.\n")
        #expect(try await carol.run(["group", "nickname", "team", "Caz"]).status != 0, "carol is gone")
        #expect(try await dave.succeed(["group", "nickname", "team", "Dee"]) == "You are Dee in #team.\n")
        let described = try await dave.run(["group", "describe", "team", "mine"])
        #expect(described.errors.contains("Only the owner and admins can change the group's profile."))
        #expect(try await alice.succeed(["group", "info", "team"]).contains("Description: We ship"))
        #expect(try await alice.succeed(["group", "members", "team"]).contains("dave “Dee” — member"))

        let unconfirmed = try await alice.run(["group", "dissolve", "team"])
        #expect(unconfirmed.errors.contains("add --yes to do it"), "\(unconfirmed)")
        let notOwner = try await bob.run(["group", "dissolve", "team", "--yes"])
        #expect(notOwner.errors.contains("Only the owner can dissolve the group."), "\(notOwner)")
        #expect(try await alice.succeed(["group", "dissolve", "team", "--yes"]).hasPrefix("Dissolved #team"))
        await server.stop()
    }

    @Test func aJoinRequestWaitsForAnAdminWhoApprovesOrRejectsIt() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        let (carol, dave) = (CLIUser(server: server.url), CLIUser(server: server.url))
        try await carol.succeed(["register", "carol", "--password", Self.password])
        try await dave.succeed(["register", "dave", "--password", Self.password])
        #expect(try await alice.succeed(["group", "create", "team"]).hasSuffix("with 1 member.\n"))
        #expect(try await alice.succeed(["group", "invite", "team", "bob"]) == "Added bob to #team.\n")
        #expect(try await alice.succeed(["group", "invite", "team", "bob", "bob"]) == "Already in #team: bob.\n")
        try await alice.succeed(["group", "admin", "team", "bob"])
        #expect(
            try await alice.succeed(["group", "policy", "team", "approval"])
                == "Joining #team now needs the approval of the owner or an admin.\n")
        let code = try #require(
            try await alice.succeed(["group", "link", "team"]).split(separator: "\n").first.map(String.init))
        #expect(try await alice.succeed(["group", "link", "team", "--list"]).contains("\(code)  by alice, 0 uses"))

        #expect(
            try await carol.succeed(["group", "join", code, "please", "let", "me", "in"])
                == "Asked to join #team; the owner or an admin will answer.\n")
        try await dave.succeed(["group", "join", code])
        let requests = try await bob.succeed(["group", "requests", "team"])
        #expect(requests.contains("carol — “please let me in” ("), "\(requests)")
        #expect(requests.contains("dave ("), "\(requests)")
        #expect(try await bob.succeed(["group", "approve", "team", "carol"]) == "carol joined #team.\n")
        #expect(
            try await bob.succeed(["group", "reject", "team", "dave"])
                == "Turned down dave's request to join #team.\n")
        #expect(try await bob.succeed(["group", "requests", "team"]) == "No pending requests to join #team.\n")
        #expect(try await carol.succeed(["conversations"]).contains("#team"))
        #expect(!(try await dave.succeed(["conversations"]).contains("#team")))
        let notAnAdmin = try await carol.run(["group", "requests", "team"])
        #expect(notAnAdmin.errors.contains("Only the owner and admins handle join requests."), "\(notAnAdmin)")
        let again = try await bob.run(["group", "approve", "team", "dave"])
        #expect(again.errors.contains("has no pending request to join"), "\(again)")
        await server.stop()
    }
}
