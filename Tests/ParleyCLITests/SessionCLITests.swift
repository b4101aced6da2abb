import Foundation
import ParleyServer
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

/// `parley two-factor` and a login with `--code`.
extension CLITests {
    @Test func twoFactorIsTurnedOnThenALoginAsksForACode() async throws {
        let server = try await InProcessServer.start()
        let laptop = CLIUser(server: server.url)
        try await laptop.succeed(["register", "alice", "--password", Self.password])
        #expect(try await laptop.succeed(["two-factor"]).contains("Two-factor login is off."))
        let enabled = try await laptop.succeed(["two-factor", "enable"])
        let secret = try #require(
            enabled.split(whereSeparator: \.isWhitespace).map(String.init).first { word in
                word.count == 32 && word.allSatisfy { $0.isUppercase || $0.isNumber }
            })
        #expect(enabled.contains("otpauth://totp/Parley:alice?secret=\(secret)"), "\(enabled)")
        #expect(enabled.components(separatedBy: "█▀▀▀▀▀█").count > 3, "a QR code: its three finders at least")
        let totp = TOTP(secret: try #require(Base32.decode(secret)))
        let wrong = try await laptop.run(["two-factor", "confirm", "000000"])
        #expect(wrong.status != 0 || totp.code(at: Self.nowMilliseconds) == "000000", "\(wrong)")
        let confirmed = try await laptop.succeed(["two-factor", "confirm", totp.code(at: Self.nowMilliseconds)])
        let recovery = confirmed.split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(recovery.count == 10, "\(confirmed)")
        #expect(try await laptop.succeed(["two-factor", "status"]).contains("10 recovery codes left"))

        let phone = CLIUser(server: server.url)
        let refused = try await phone.run(["login", "alice", "--password", Self.password, "--code", "abcde-fghij"])
        #expect(refused.status != 0 && refused.errors.contains("not one of yours"), "\(refused)")
        let loggedIn = try await phone.succeed(["login", "alice", "--password", Self.password, "--code", recovery[0]])
        #expect(loggedIn.contains("Logged in as alice"))
        #expect(try await phone.succeed(["two-factor", "disable", recovery[1]]).contains("Two-factor login is off."))
        await server.stop()
    }

    static var nowMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// `parley password`.
extension CLITests {
    @Test func passwordChangesItAndSignsOtherDevicesOut() async throws {
        let server = try await InProcessServer.start()
        let laptop = CLIUser(server: server.url)
        let phone = CLIUser(server: server.url)
        try await laptop.succeed(["register", "alice", "--password", Self.password])
        try await phone.succeed(["login", "alice", "--password", Self.password])
        let wrong = try await laptop.run(["password", "--current", "Wrong0ne!", "--new", "N3w-Secret!"])
        #expect(wrong.status != 0 && wrong.errors.contains("current password is wrong"), "\(wrong)")
        let changed = try await laptop.succeed(["password", "--current", Self.password, "--new", "N3w-Secret!"])
        #expect(changed.contains("Password changed; your other devices are signed out."))
        #expect(try await phone.run(["whoami"]).status != 0)
        #expect(try await laptop.succeed(["whoami"]).contains("alice"))
        #expect(try await phone.succeed(["login", "alice", "--password", "N3w-Secret!"]).contains("Logged in"))
        let log = try await laptop.succeed(["sessions", "log"]).split(separator: "\n").map(String.init)
        #expect(log.first?.hasPrefix("just now  logged in  parley-cli@") == true, "\(log)")
        #expect(log.count == 4 && log[1].contains("password changed  from 127.0.0.1"), "\(log)")
        await server.stop()
    }
}
