import Foundation
import ParleyTesting
import Testing

/// `parley dnd`, `parley notifications`, `parley presence` and `parley privacy --presence`.
extension CLITests {
    @Test func quietHoursNotificationSwitchesAndPresenceFromTheCommandLine() async throws {
        let server = try await InProcessServer.start()
        let (alice, bob) = try await Self.aliceAndBob(on: server)
        #expect(try await alice.succeed(["dnd"]) == "Do not disturb: off (UTC).\n")
        #expect(
            try await alice.succeed([
                "dnd", "22:00-07:00", "12:00-13:00", "--days", "1,2,3,4,5", "--time-zone", "Asia/Shanghai",
            ])
                == "Do not disturb (Asia/Shanghai): 22:00-07:00 on Mon,Tue,Wed,Thu,Fri; 12:00-13:00 on Mon,Tue,Wed,Thu,Fri.\n"
        )
        let wrong = try await alice.run(["dnd", "25:00-07:00", "--time-zone", "UTC"])
        #expect(wrong.status != 0 && wrong.errors.contains("HH:MM"), "\(wrong)")
        let daysAlone = try await alice.run(["dnd", "--days", "6,7"])
        #expect(daysAlone.status != 0 && daysAlone.errors.contains("--days goes with periods"), "\(daysAlone)")
        let shape = try await alice.run(["dnd", "22:00"])
        #expect(shape.status != 0 && shape.errors.contains("HH:MM-HH:MM"), "\(shape)")
        #expect(
            try await alice.succeed(["dnd", "off", "--time-zone", "Europe/Berlin"])
                == "Do not disturb: off (Europe/Berlin).\n")

        let switches = try await alice.succeed(["notifications", "--group", "off", "--preview", "off"])
        #expect(switches.hasPrefix("direct:            on\ngroup:             off\n"), "\(switches)")
        #expect(switches.contains("preview:           off\nDo not disturb: off (Europe/Berlin).\n"))
        #expect(try await alice.succeed(["notifications"]) == switches)

        _ = try await alice.succeed(["friend", "add", "bob"])
        _ = try await bob.succeed(["friend", "accept", "alice"])
        #expect(try await alice.succeed(["presence"]) == "@bob  last seen a while ago\n")
        let privacy = try await bob.succeed(["privacy", "--presence", "nobody"])
        #expect(privacy.hasSuffix("presence:         nobody\n"), "\(privacy)")
        #expect(try await alice.succeed(["presence", "bob"]) == "@bob  hidden\n")
        let bad = try await bob.run(["privacy", "--presence", "friends"])
        #expect(bad.status != 0)
        await server.stop()
    }

    /// `parley serve` refuses half an APNs configuration, an unreadable key and a presence
    /// interval out of range, before it binds anything.
    @Test func serveRefusesAnIncompletePushOrPresenceConfiguration() async throws {
        let directory = URL(fileURLWithPath: temporaryDirectory("parley-serve"))
        let cases: [([String], String)] = [
            (["--apns-key-id", "KEY1234567"], "needs all of --apns-key, --apns-key-id and --apns-team-id"),
            (
                ["--apns-key", "/nonexistent.p8", "--apns-key-id", "KEY1234567", "--apns-team-id", "TEAM123456"],
                "Cannot read the APNs key"
            ),
            (["--presence-interval", "9"], "presence interval must be a whole number in 10...5000"),
        ]
        for (flags, message) in cases {
            let session = try CLISession(
                executable: CLIUser.binary,
                arguments: ["serve", "--port", "\(try freePort())", "--data-dir", directory.path] + flags,
                directory: directory)
            session.endInput()
            let status = try await session.waitForExit()
            #expect(status != 0 && session.errors.contains(message), "\(flags): \(session.errors)")
        }
    }
}
