import Foundation
import ParleyTesting
import Testing

/// `parley sessions` and `parley sessions revoke`.
extension CLITests {
    @Test func sessionsListsEveryDeviceAndRevokeSignsOneOut() async throws {
        let server = try await InProcessServer.start()
        let laptop = CLIUser(server: server.url)
        let phone = CLIUser(server: server.url)
        try await laptop.succeed(["register", "alice", "--password", Self.password])
        try await phone.succeed(["login", "alice", "--password", Self.password])

        let listed = try await laptop.succeed(["sessions"])
        let lines = listed.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(listed)")
        let mine = try #require(lines.first { $0.hasPrefix("*") })
        #expect(mine.contains("(this device)") && mine.contains("127.0.0.1") && mine.contains("last active just now"))
        let other = try #require(lines.first { !$0.hasPrefix("*") })
        let otherId = try #require(other.split(separator: " ").first.map(String.init))
        let ownId = try #require(mine.split(separator: " ").dropFirst().first.map(String.init))

        let own = try await laptop.run(["sessions", "revoke", ownId])
        #expect(own.status != 0 && own.errors.contains("use 'parley logout'"), "\(own)")
        let neither = try await laptop.run(["sessions", "revoke"])
        #expect(neither.status != 0 && neither.errors.contains("Give a session id or --others"), "\(neither)")
        let unknown = try await laptop.run(["sessions", "revoke", "987654"])
        #expect(unknown.status != 0 && unknown.errors.contains("no live session 987654"), "\(unknown)")

        #expect(try await laptop.succeed(["sessions", "revoke", otherId]).contains("Signed out session \(otherId)"))
        let signedOut = try await phone.run(["whoami"])
        #expect(signedOut.status != 0, "\(signedOut)")
        #expect(try await laptop.succeed(["sessions"]).split(separator: "\n").count == 1)
        #expect(try await laptop.succeed(["sessions", "--all"]).contains("ended just now"))
        #expect(try await laptop.succeed(["sessions", "revoke", "--others"]).contains("Signed out 0 other devices."))
        await server.stop()
    }
}
