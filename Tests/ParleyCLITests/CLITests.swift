import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import ParleyTesting
import Testing

@testable import parley

/// The `parley` command-line client as a person uses it: the built binary in separate
/// processes, one home directory per person, against a real server over real sockets.
@Suite struct CLITests {
    static let password = "Passw0rd!"

    /// Two people, each registered (and so logged in) from a home of their own.
    static func aliceAndBob(on server: InProcessServer) async throws -> (CLIUser, CLIUser) {
        let (alice, bob) = (CLIUser(server: server.url), CLIUser(server: server.url))
        try await alice.succeed(["register", "alice", "--password", password])
        try await bob.succeed(["register", "bob", "--password", password])
        return (alice, bob)
    }

    @Test func registerSendListReadAGroupAndLogOutAndInAgain() async throws {
        let server = try await InProcessServer.start()
        let alice = CLIUser(server: server.url)
        let bob = CLIUser(server: server.url)
        #expect(
            try await alice.succeed(["register", "alice", "--password", Self.password]).contains(
                "Registered and logged in as alice"))
        try await bob.succeed(["register", "bob", "--password", Self.password])

        #expect(try await alice.succeed(["send", "bob", "hello", "bob"]).contains("Sent to @bob (#1)."))
        #expect(try await bob.succeed(["history", "alice"]).contains("@alice — 1 message\n"))
        #expect(try await alice.succeed(["send", "@bob", "second line"]).contains("Sent to @bob (#2)."))
        #expect(try await bob.succeed(["conversations"]).contains("@alice (2 unread) — second line"))
        let history = try await bob.succeed(["history", "alice"])
        #expect(history.contains("@alice — 2 messages"))
        let lines = history.split(separator: "\n")
        let first = try #require(lines.firstIndex { $0.hasSuffix("alice: hello bob") }, "\(history)")
        let second = try #require(lines.firstIndex { $0.hasSuffix("alice: second line") }, "\(history)")
        #expect(first < second)

        #expect(try await alice.succeed(["group", "create", "team", "bob"]).contains("with 2 members"))
        #expect(try await bob.succeed(["send", "team", "hi", "team"]).contains("Sent to #team (#1)."))
        let byMember = try await bob.run(["group", "rename", "team", "bobs crew"])
        #expect(byMember.status != 0)
        #expect(byMember.errors.contains("Only the owner and admins can change the group's profile."))
        #expect(
            try await alice.succeed(["group", "rename", "team", "launch crew"]) == "Renamed #team to #launch crew.\n")
        #expect(try await alice.succeed(["conversations"]).contains("#launch crew"))
        let listBefore = try await alice.succeed(["conversations"])
        for target in ["bob", "999", "nosuch", "carol"] {
            let notAGroup = try await alice.run(["group", "rename", target, "pair"])
            #expect(notAGroup.status != 0)
            #expect(notAGroup.errors.contains("You are in no group called '\(target)'."))
        }
        let tooLong = try await alice.run(["group", "rename", "launch crew", String(repeating: "x", count: 65)])
        #expect(tooLong.status != 0)
        #expect(tooLong.errors.contains("'name' must be 1 to 64 characters long."))
        #expect(try await alice.succeed(["conversations"]) == listBefore, "a refused rename opens nothing")

        #expect(try await alice.succeed(["whoami"]).hasPrefix("alice (id "))
        #expect(try await alice.succeed(["logout"]).contains("Logged out alice."))
        let afterLogout = try await alice.run(["whoami"])
        #expect(afterLogout.status != 0)
        #expect(afterLogout.errors.contains("Not logged in to \(server.url). Run 'parley login <username>' first."))

        #expect(
            try await alice.succeed(["login", "alice", "--password", Self.password]).contains("Logged in as alice"))
        #expect(try await alice.succeed(["history", "launch crew"]).contains("bob: hi team"))
        await server.stop()
    }

    @Test func mistakesGetOneClearLineAndAFailingExitAndChangeNothing() async throws {
        let server = try await InProcessServer.start()
        let alice = CLIUser(server: server.url)
        try await alice.succeed(["register", "alice", "--password", Self.password])

        let cases: [(arguments: [String], says: String)] = [
            (["register", "1bob", "--password", Self.password], "Username must start with a letter (a-z)."),
            (["register", "bob", "--password", "short"], "Password must be at least 8 characters long."),
            (["register", "alice", "--password", Self.password], "That username is taken."),
            (["login", "alice", "--password", "wrong-password"], "The login or password is wrong."),
            (["send", "nobody", "hello"], "No user is called 'nobody'."),
            (["send", "alice", "   "], "Nothing to send."),
        ]
        for (arguments, says) in cases {
            let outcome = try await alice.run(arguments)
            #expect(outcome.status != 0, "\(arguments): \(outcome)")
            #expect(outcome.errors.contains(says), "\(arguments): \(outcome)")
            #expect(outcome.errors.split(separator: "\n").count == 1, "one line, no stack trace: \(outcome)")
        }
        #expect(try await alice.succeed(["whoami"]).hasPrefix("alice (id "), "still logged in as alice")
        #expect(try await alice.succeed(["conversations"]).contains("No conversations yet."))

        let unreachable = CLIUser(server: "http://127.0.0.1:\(try freePort())")
        let outcome = try await unreachable.run(["register", "carol", "--password", Self.password])
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains("Cannot reach the server at \(unreachable.server)"), "\(outcome)")

        let silent = try await SilentServer()
        let waiting = try await CLIUser(server: silent.url).run([
            "register", "carol", "--password", Self.password, "--timeout", "1",
        ])
        #expect(waiting.status != 0)
        #expect(
            waiting.errors
                == "Error: The server at \(silent.url) did not answer within 1 s (--timeout gives it longer).\n",
            "\(waiting)")
        let badTimeouts = [
            ("0", "must be 1 to 3600 seconds"), ("3601", "must be 1 to 3600 seconds"),
            ("soon", "The value 'soon' is invalid for '--timeout <timeout>'"),
        ]
        for (timeout, says) in badTimeouts {
            let refused = try await alice.run(["whoami", "--timeout", timeout])
            #expect(refused.status != 0 && refused.errors.contains(says), "\(refused)")
        }
        await silent.stop()
        await server.stop()
    }

    @Test func aMessageSentWhileTheServerIsDownIsQueuedAndGoesOutOnceWithTheNextCommand() async throws {
        var server = try await InProcessServer.start()
        let (port, data) = (server.port, server.dataDirectory)
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        try await alice.succeed(["send", "bob", "one"])
        await server.stop()

        #expect(try await alice.succeed(["send", "bob", "two"]).contains("Queued: the server is unreachable"))
        server = try await InProcessServer.start(port: port, dataDirectory: data)
        #expect(try await alice.succeed(["send", "bob", "three"]).contains("Sent to @bob (#3)."))
        let texts = try await bob.succeed(["history", "alice"]).split(separator: "\n").compactMap { line in
            line.firstRange(of: "alice: ").map { String(line[$0.upperBound...]) }
        }
        #expect(texts == ["one", "two", "three"], "each once, in the order typed")
        await server.stop()
    }

    @Test func chatShowsWhatArrivesAndSendsEachTypedLineOnce() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        try await alice.succeed(["send", "bob", "are you there?"])
        try await alice.succeed(["friend", "add", "bob"])
        try await bob.succeed(["friend", "accept", "alice"])

        let chat = try bob.start(["chat", "alice"])
        defer { chat.terminate() }
        try await chat.waitForOutput("alice: are you there?")
        try await chat.waitForOutput("(connected)")
        try await chat.waitForOutput("(alice is offline, last seen")
        try await alice.succeed(["send", "bob", "still there?"])
        try await chat.waitForOutput("alice: still there?")

        chat.type("yes, here")
        try await chat.waitForOutput("✓ #3 \"yes, here\" sent")
        let history = try await alice.succeed(["history", "bob"])
        #expect(history.components(separatedBy: "bob: yes, here").count == 2, "exactly once: \(history)")
        #expect(try await alice.succeed(["conversations"]).contains("@bob (1 unread) — yes, here"))

        // Alice types in an app (the SDK): the chat says so.
        let app = try ParleyClient(
            configuration: ClientConfiguration(serverURL: server.url), store: ClientStore(path: nil),
            http: AsyncHTTPTransport(), realtime: NIOWebSocketTransport())
        try await app.session.login("alice", password: Self.password)
        await app.connect()
        let direct = try await app.conversations.openDirect(withUsername: "bob").id
        for _ in 0..<300 where await app.connection.status != .connected {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await chat.waitForOutput("(alice is online)")
        await app.typing.userIsTyping(in: direct)
        try await chat.waitForOutput("alice is typing…")
        await app.disconnect()
        try await chat.waitForOutput("(alice is offline, last seen just now)")

        chat.type("/quit")
        #expect(try await chat.waitForExit() == 0)
        await server.stop()
    }

    @Test func chatSaysInWordsWhyItWentOffline() async throws {
        let server = try await InProcessServer.start()
        let (_, bob) = try await Self.aliceAndBob(on: server)
        let chat = try bob.start(["chat", "alice"])
        defer { chat.terminate() }
        try await chat.waitForOutput("(connected)")
        try await bob.succeed(["logout"])
        try await chat.waitForOutput("(signed out: this device's session was ended; run `parley login`)")
        #expect(!chat.output.contains("sessionRevoked"), "\(chat.output)")
        await server.stop()
    }

    /// Messages sent while the chat was reconnecting arrive by sync: each is printed once, and
    /// one printed after a later one (the summary's last message comes before the hole fill)
    /// says it is earlier, with its number.
    @Test func chatAcrossAServerRestartShowsEachMissedMessageOnceAndMarksALateOne() async throws {
        var server = try await InProcessServer.start()
        let (port, data) = (server.port, server.dataDirectory)
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        try await alice.succeed(["send", "bob", "before"])
        let chat = try bob.start(["chat", "alice"])
        defer { chat.terminate() }
        try await chat.waitForOutput("(connected)")
        await server.stop()
        try await chat.waitForOutput("(reconnecting")
        server = try await InProcessServer.start(port: port, dataDirectory: data)
        try await alice.succeed(["send", "bob", "missed one"])
        try await alice.succeed(["send", "bob", "missed two"])
        try await chat.waitForOutput("alice: missed one")
        try await chat.waitForOutput("alice: missed two")

        let lines = chat.output.split(separator: "\n").map(String.init)
        for text in ["before", "missed one", "missed two"] {
            #expect(lines.filter { $0.hasSuffix("alice: \(text)") }.count == 1, "\(text) once: \(chat.output)")
        }
        let one = try #require(lines.firstIndex { $0.hasSuffix("alice: missed one") })
        let two = try #require(lines.firstIndex { $0.hasSuffix("alice: missed two") })
        if one > two {
            #expect(lines[one].hasPrefix("↑ earlier, #2: "), "\(chat.output)")
        } else {
            #expect(!lines[one].contains("earlier"), "\(chat.output)")
        }
        print(
            "chat across a restart: missed messages printed \(one > two ? "out of order, the late one marked" : "in order")"
        )
        chat.type("/quit")
        #expect(try await chat.waitForExit() == 0)
        await server.stop()
    }

    @Test func onlyAMessageOlderThanOneAlreadyPrintedIsMarkedEarlier() {
        #expect(earlierMark(seq: 2, newestShown: 3) == "↑ earlier, #2: ")
        #expect(earlierMark(seq: 4, newestShown: 3) == "")
        #expect(earlierMark(seq: 3, newestShown: 3) == "", "the same message again is a state change, not a new line")
        #expect(earlierMark(seq: nil, newestShown: 3) == "", "one of mine still sending has no number yet")
    }

    /// A message the checks refuse (a text too long, failed in the outbox) shows its text; one
    /// of a kind this version does not know, without text, says so.
    @Test func contentThisVersionCannotShowIsRenderedByItsTextWhenItHasOne() {
        let long = String(repeating: "y", count: Limits.maxTextLength + 1)
        let content = JSONValue.object(["text": .string(long)])
        #expect(throws: ParleyError.self) { try MessageContent(kind: .text, content: content) }
        #expect(render(.unsupported(kind: .text, content: content)) == long)
        #expect(
            render(.unsupported(kind: MessageKind(rawValue: "poll"), content: .object([:])))
                == "[unsupported message: poll]")
    }
}
