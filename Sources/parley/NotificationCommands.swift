import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit
import ParleyUI

/// `parley dnd`: shows or sets the quiet hours in which nothing is pushed to your devices.
struct DoNotDisturb: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dnd",
        abstract: "Show or set do-not-disturb hours: no pushes then, on any of your devices.",
        discussion: """
            parley dnd                          show them
            parley dnd 22:00-07:00              every night (a period may run past midnight)
            parley dnd 22:00-07:00 12:00-13:00 --days 1,2,3,4,5
                                                weeknights and weekday lunches (1 = Monday)
            parley dnd off                      none
            Times are in --time-zone, by default this computer's.
            """)
    @OptionGroup var options: ClientOptions
    @Argument(help: "Periods as HH:MM-HH:MM, or 'off'.") var periods: [String] = []
    @Option(help: "The days the periods start on, ISO weekdays 1 (Monday) to 7, comma-separated. Default: every day.")
    var days: String?
    @Option(help: "An IANA time zone such as Europe/Berlin. Default: this computer's.") var timeZone: String?

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let settings: NotificationSettings
            if periods.isEmpty && days != nil {
                throw CLIError("--days goes with periods: parley dnd 22:00-07:00 --days 6,7.")
            }
            if periods.isEmpty && timeZone == nil {
                settings = try await client.notifications.fetch()
            } else {
                // Periods are read in this computer's zone unless told; clearing them keeps the zone.
                var update = UpdateNotificationSettingsRequest(
                    timeZone: timeZone ?? (periods == ["off"] ? nil : TimeZone.current.identifier))
                if !periods.isEmpty { update.quietHours = try Self.quietHours(periods, days: days) }
                settings = try await client.notifications.update(update)
            }
            print(Self.describe(settings))
        }
    }

    static func quietHours(_ periods: [String], days: String?) throws -> [QuietPeriod] {
        if periods == ["off"] { return [] }
        let weekdays = try days.map { list in
            try list.split(separator: ",").map {
                guard let day = Int($0.trimmingCharacters(in: .whitespaces)) else {
                    throw CLIError("--days takes weekday numbers such as 1,2,3 (1 is Monday), not '\(list)'.")
                }
                return day
            }
        }
        return try periods.map { period in
            let ends = period.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 2 else {
                throw CLIError("A period is HH:MM-HH:MM, such as 22:00-07:00, not '\(period)'.")
            }
            return QuietPeriod(start: String(ends[0]), end: String(ends[1]), days: weekdays)
        }
    }

    static func describe(_ settings: NotificationSettings) -> String {
        guard !settings.quietHours.isEmpty else { return "Do not disturb: off (\(settings.timeZone))." }
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let periods = settings.quietHours.map { period in
            let days =
                period.days.map { " on " + $0.map { names[($0 - 1) % 7] }.joined(separator: ",") } ?? " every day"
            return "\(period.start)-\(period.end)\(days)"
        }
        return "Do not disturb (\(settings.timeZone)): " + periods.joined(separator: "; ") + "."
    }
}

/// `parley notifications`: shows or changes what is pushed to your devices while none is connected.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract:
            "Show or change which pushes you get: direct, group, mentions, friend requests, invitations, previews.")

    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off
        var isOn: Bool { self == .on }
    }

    @OptionGroup var options: ClientOptions
    @Option(help: "Direct messages.") var direct: Switch?
    @Option(help: "Group messages.") var group: Switch?
    @Option(help: "Messages that mention you, even in muted conversations.") var mentions: Switch?
    @Option(help: "Friend requests.") var friendRequests: Switch?
    @Option(help: "Being added to a group.") var groupInvitations: Switch?
    @Option(help: "Show who wrote and what in a notification.") var preview: Switch?

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let update = UpdateNotificationSettingsRequest(
                direct: direct?.isOn, group: group?.isOn, mentions: mentions?.isOn,
                friendRequests: friendRequests?.isOn, groupInvitations: groupInvitations?.isOn, preview: preview?.isOn)
            let settings =
                update == UpdateNotificationSettingsRequest()
                ? try await client.notifications.fetch() : try await client.notifications.update(update)
            func word(_ flag: Bool) -> String { flag ? "on" : "off" }
            print(
                """
                direct:            \(word(settings.direct))
                group:             \(word(settings.group))
                mentions:          \(word(settings.mentions))
                friend requests:   \(word(settings.friendRequests))
                group invitations: \(word(settings.groupInvitations))
                preview:           \(word(settings.preview))
                \(DoNotDisturb.describe(settings))
                """)
        }
    }
}

/// `parley presence [username…]`: who is online: your friends, or the users named.
struct PresenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence", abstract: "Show who is online: your friends, or the users you name.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Usernames; none: all your friends.") var usernames: [String] = []

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            var ids: [UserID] = []
            for username in usernames { ids.append(try await client.contacts.lookup(username: username).id) }
            let presences = ids.isEmpty ? try await client.presence.refresh() : try await client.presence.fetch(ids)
            if presences.isEmpty { print("No friends yet.") }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for presence in presences {
                let line = PresenceLine.text(for: presence, now: now) ?? "hidden"
                print("@\(await username(presence.userId, client: client))  \(line)")
            }
        }
    }
}
