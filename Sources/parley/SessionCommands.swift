import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit
import ParleyUI

/// `parley sessions`: the devices logged in to this account, and signing them out.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions", abstract: "List the devices logged in to your account, or sign them out.",
        subcommands: [List.self, Revoke.self, Log.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List your sessions: id, device, address, when it logged in and was last active.")
        @OptionGroup var options: ClientOptions
        @Flag(help: "Show ended (revoked) sessions too.") var all = false

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let sessions = try await client.sessions.list().filter { all || $0.revokedAt == nil }
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                for session in sessions {
                    var line =
                        "\(session.current ? "*" : " ") \(session.id)  \(session.device)  \(session.ip)  "
                        + "logged in \(PresenceLine.moment(session.createdAt, now: now)), "
                        + "last active \(PresenceLine.moment(session.lastUsedAt, now: now))"
                    if let revokedAt = session.revokedAt {
                        line += ", ended \(PresenceLine.moment(revokedAt, now: now))"
                    }
                    if session.current { line += " (this device)" }
                    print(line)
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a device out (its sockets close at once), or every other device with --others.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The session's id, as 'parley sessions' lists it.") var sessionId: Int64?
        @Flag(help: "Sign out every device but this one.") var others = false

        func validate() throws {
            guard (sessionId != nil) != others else {
                throw ValidationError("Give a session id or --others (not both).")
            }
        }

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                if others {
                    let count = try await client.sessions.revokeOthers()
                    print("Signed out \(count) other device\(count == 1 ? "" : "s").")
                    return
                }
                let id = SessionID(sessionId ?? 0)
                let sessions = try await client.sessions.list()
                if sessions.first(where: { $0.id == id })?.current == true {
                    throw CLIError("Session \(id) is this device's: use 'parley logout'.")
                }
                try await client.sessions.revoke(id)
                let device = sessions.first { $0.id == id }?.device ?? "the device"
                print("Signed out session \(id) (\(device)).")
            }
        }
    }

    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Your account's security log: logins, password and two-factor changes, devices signed out.")
        @OptionGroup var options: ClientOptions
        @Option(help: "How many events, newest first (1-100).") var limit = 20

        func run() async throws {
            try await userFacing(options) {
                let events = try await options.signedInClient().sessions.securityEvents(limit: limit)
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                for event in events {
                    var line = "\(PresenceLine.moment(event.at, now: now))  \(Self.describe(event.kind))"
                    if let device = event.device { line += "  \(device)" }
                    if let ip = event.ip { line += "  from \(ip)" }
                    print(line)
                }
            }
        }

        static func describe(_ kind: SecurityEventKind) -> String {
            switch kind {
            case .login: "logged in"
            case .passwordChanged: "password changed"
            case .twoFactorEnabled: "two-factor login turned on"
            case .twoFactorDisabled: "two-factor login turned off"
            case .recoveryCodeUsed: "recovery code used"
            case .sessionRevoked: "device signed out"
            default: kind.rawValue
            }
        }
    }
}
