import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import ParleyTesting
import Testing

@testable import parley

/// `parley chat`'s `/reply`, `/edit`, `/recall`, `/forward` and `/delete`, its receipts, and
/// `parley recall` and `parley clear`: two people at their terminals.
extension CLITests {
    /// A server with alice, bob and carol signed up, and alice's group "team" of the three.
    static func teamOfThree() async throws -> (InProcessServer, CLIUser, CLIUser, CLIUser) {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await aliceAndBob(on: server)
        let carol = CLIUser(server: server.url)
        try await carol.succeed(["register", "carol", "--password", password])
        try await alice.succeed(["group", "create", "team", "bob", "carol"])
        return (server, alice, bob, carol)
    }

    @Test func chatRepliesEditsRecallsForwardsAndDeletesByNumberAndShowsReceipts() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        try await alice.succeed(["group", "create", "team", "bob"])
        #expect(try await alice.succeed(["send", "bob", "lunch at noon?"]).contains("(#1)"))

        let bobChat = try bob.start(["chat", "alice"])
        defer { bobChat.terminate() }
        try await bobChat.waitForOutput(" #1] alice: lunch at noon?")
        try await bobChat.waitForOutput("(connected)")
        // Alice's phone (the SDK) is online but she does not look: bob's reply is delivered.
        let phone = try ParleyClient(
            configuration: ClientConfiguration(serverURL: server.url), store: ClientStore(path: nil),
            http: AsyncHTTPTransport(), realtime: NIOWebSocketTransport())
        try await phone.session.login("alice", password: Self.password)
        await phone.connect()
        await phone.catchUp()

        bobChat.type("/reply 1 sure")
        try await bobChat.waitForOutput("bob: ↪ alice: lunch at noon? — sure")
        try await bobChat.waitForOutput("✓ #2 \"sure\" delivered")
        await phone.disconnect()

        let aliceChat = try alice.start(["chat", "bob"])
        defer { aliceChat.terminate() }
        try await aliceChat.waitForOutput(" #2] bob: ↪ alice: lunch at noon? — sure")
        try await aliceChat.waitForOutput("(connected)")
        try await bobChat.waitForOutput("✓✓ #2 \"sure\" read")

        bobChat.type("/edit 2 sure, 12:30?")
        try await aliceChat.waitForOutput("✎ #2 ↪ alice: lunch at noon? — sure, 12:30? (edited)")

        aliceChat.type("/recall 1")
        try await aliceChat.waitForOutput("↺ #1 * You recalled a message")
        aliceChat.type("/recall 1")
        try await aliceChat.waitForOutput("✗ #1 was recalled.")
        try await aliceChat.waitForOutput("(your text, to edit and send again: lunch at noon?)")
        try await bobChat.waitForOutput("↺ #1 * alice recalled a message")
        try await bobChat.waitForOutput("↪ #2 ↪ alice: recalled message — sure, 12:30? (edited)")

        bobChat.type("/forward 2 team")
        try await bobChat.waitForOutput("➜ #2 forwarded to #team")
        #expect(try await alice.succeed(["history", "team"]).contains("bob: [forwarded] sure, 12:30?"))

        bobChat.type("/delete 2")
        try await bobChat.waitForOutput("(#2 deleted)")
        bobChat.type("/recall 9")
        try await bobChat.waitForOutput("✗ No message #9 is shown here.")
        for chat in [bobChat, aliceChat] {
            chat.type("/quit")
            #expect(try await chat.waitForExit() == 0)
        }
        let bobsHistory = try await bob.succeed(["history", "alice"])
        #expect(!bobsHistory.contains("sure"), "deleted for bob: \(bobsHistory)")
        #expect(try await alice.succeed(["history", "bob"]).contains("bob: ↪ alice: recalled message — sure, 12:30?"))
        await server.stop()
    }

    @Test func aGroupChatShowsHowManyReadEachOfTheUsersMessages() async throws {
        let (server, alice, bob, carol) = try await Self.teamOfThree()
        let chat = try alice.start(["chat", "team"])
        defer { chat.terminate() }
        try await chat.waitForOutput("(connected)")
        chat.type("who reads this?")
        try await chat.waitForOutput("✓ #1 \"who reads this?\" sent")

        for (reader, count) in [(bob, 1), (carol, 2)] {
            let theirs = try reader.start(["chat", "team"])
            try await theirs.waitForOutput("alice: who reads this?")
            try await chat.waitForOutput("✓✓ #1 \"who reads this?\" read by \(count)")
            theirs.type("/quit")
            #expect(try await theirs.waitForExit() == 0)
        }
        chat.type("/quit")
        #expect(try await chat.waitForExit() == 0)
        await server.stop()
    }

    @Test func conversationsSayWhenAnUnreadMessageMentionsTheUser() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        try await alice.succeed(["group", "create", "team", "bob"])
        let app = try ParleyClient(
            configuration: ClientConfiguration(serverURL: server.url), store: ClientStore(path: nil),
            http: AsyncHTTPTransport(), realtime: NIOWebSocketTransport())
        try await app.session.login("alice", password: Self.password)
        await app.catchUp()
        let team = try #require(try app.store.conversations().first { $0.name == "team" }).id
        let bobId = try await app.conversations.user(named: "bob").id
        try await app.sendQueue.send(text: "@bob look", mentions: Mentions([bobId]), to: team).settled()
        let listed = try await bob.succeed(["conversations"])
        #expect(listed.contains("#team (1 unread) [@me] — @bob look"), "\(listed)")

        let chat = try bob.start(["chat", "team"])
        try await chat.waitForOutput("alice: @bob look")
        chat.type("/quit")
        #expect(try await chat.waitForExit() == 0)
        #expect(!(try await bob.succeed(["conversations"]).contains("[@me]")), "read in the chat")
        await server.stop()
    }

    @Test func recallAndClearFromTheCommandLine() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        try await alice.succeed(["send", "bob", "hello"])
        #expect(try await alice.succeed(["send", "bob", "oops"]).contains("(#2)"))
        #expect(try await alice.succeed(["recall", "bob", "2"]) == "Recalled #2 in @bob.\n")
        #expect(try await bob.succeed(["history", "alice"]).contains(" #2] alice: * alice recalled a message"))
        let again = try await alice.run(["recall", "bob", "2"])
        #expect(again.status != 0, "\(again)")

        #expect(try await bob.succeed(["clear", "alice"]) == "Cleared the history of @alice for you.\n")
        let cleared = try await bob.succeed(["history", "alice"])
        #expect(!cleared.contains("hello"), "\(cleared)")
        #expect(try await alice.succeed(["history", "bob"]).contains("alice: hello"), "alice keeps hers")
        await server.stop()
    }

    @Test func aChatLineMentionsTheUsersItNamesAndEveryoneWithAtAll() async throws {
        let (server, alice, bob, carol) = try await Self.teamOfThree()
        let chat = try alice.start(["chat", "team"])
        defer { chat.terminate() }
        try await chat.waitForOutput("(connected)")
        chat.type("@bob, lunch? (@nobody is no user)")
        try await chat.waitForOutput("✓ #1 ")
        #expect(try await bob.succeed(["conversations"]).contains("[@me]"))
        #expect(!(try await carol.succeed(["conversations"]).contains("[@me]")))
        chat.type("@all meeting at 3")
        try await chat.waitForOutput("✓ #2 ")
        #expect(try await carol.succeed(["conversations"]).contains("[@me]"))
        chat.type("/quit")
        #expect(try await chat.waitForExit() == 0)
        await server.stop()
    }

    /// `parley send` mentions the users a line names, as a chat line does.
    @Test func aSentLineMentionsTheUsersItNames() async throws {
        let (server, alice, bob, carol) = try await Self.teamOfThree()
        #expect(try await alice.succeed(["send", "team", "@bob, the report?"]).contains("Sent to #team (#1)."))
        #expect(try await bob.succeed(["conversations"]).contains("[@me]"))
        #expect(!(try await carol.succeed(["conversations"]).contains("[@me]")))
        try await alice.succeed(["send", "team", "@all done"])
        #expect(try await carol.succeed(["conversations"]).contains("[@me]"), "the owner's @all")
        await server.stop()
    }

    /// Only a group's owner and admins may mention everyone: anyone else's `@all`, and any
    /// `@all` in a direct chat, is sent as plain text rather than refused.
    @Test func atAllFromAPlainMemberOrInADirectChatIsPlainText() async throws {
        let (server, alice, bob, carol) = try await Self.teamOfThree()
        let chat = try bob.start(["chat", "team"])
        defer { chat.terminate() }
        try await chat.waitForOutput("(connected)")
        chat.type("thanks @all")
        try await chat.waitForOutput("✓ #1 \"thanks @all\" sent")
        #expect(!(try await carol.succeed(["conversations"]).contains("[@me]")))
        chat.type("/quit")
        #expect(try await chat.waitForExit() == 0)

        // Once the group lets every member, bob's @all mentions everyone.
        #expect(
            try await alice.succeed(["group", "at-all", "team", "everyone"])
                == "Every member may mention @all in #team now.\n")
        let again = try bob.start(["chat", "team"])
        defer { again.terminate() }
        try await again.waitForOutput("(connected)")
        again.type("@all cake in the kitchen")
        try await again.waitForOutput("\"@all cake in the kitchen\" sent")
        #expect(try await carol.succeed(["conversations"]).contains("[@me]"))
        again.type("/quit")
        #expect(try await again.waitForExit() == 0)

        let direct = try alice.start(["chat", "bob"])
        defer { direct.terminate() }
        try await direct.waitForOutput("(connected)")
        direct.type("@all hi")
        try await direct.waitForOutput("✓ #1 \"@all hi\" sent")
        direct.type("/quit")
        #expect(try await direct.waitForExit() == 0)
        await server.stop()
    }
}
