import Foundation
import ParleyCore
import Testing

/// Quiet hours read in the user's time zone, periods past midnight and on given days, and
/// the checks on preferences and push tokens.
@Suite struct NotificationSettingsTests {
    /// Milliseconds since 1970 of a wall-clock time in `zone`.
    func instant(_ text: String, in zone: String) throws -> Int64 {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let date = try #require(formatter.date(from: text))
        return Int64(date.timeIntervalSince1970 * 1000)
    }

    @Test func quietHoursAreReadInTheUsersTimeZoneAndRunPastMidnight() throws {
        // 2026-11-23 is a Monday.
        let nights = NotificationSettings(
            timeZone: "Asia/Shanghai", quietHours: [QuietPeriod(start: "22:00", end: "07:00")])
        #expect(nights.isQuiet(at: try instant("2026-11-23 23:30", in: "Asia/Shanghai")))
        #expect(nights.isQuiet(at: try instant("2026-11-24 06:59", in: "Asia/Shanghai")))
        #expect(!nights.isQuiet(at: try instant("2026-11-24 07:00", in: "Asia/Shanghai")))
        #expect(!nights.isQuiet(at: try instant("2026-11-23 21:59", in: "Asia/Shanghai")))
        // 23:30 in Shanghai is 15:30 UTC: read in UTC it would not be quiet.
        #expect(
            !NotificationSettings(quietHours: nights.quietHours).isQuiet(
                at: try instant("2026-11-23 23:30", in: "Asia/Shanghai")))

        // Friday night to Saturday morning only: the morning belongs to the day it started.
        let weekend = NotificationSettings(
            timeZone: "Europe/Berlin", quietHours: [QuietPeriod(start: "20:00", end: "09:00", days: [5])])
        #expect(weekend.isQuiet(at: try instant("2026-11-27 21:00", in: "Europe/Berlin")))  // Friday
        #expect(weekend.isQuiet(at: try instant("2026-11-28 08:00", in: "Europe/Berlin")))  // Saturday morning
        #expect(!weekend.isQuiet(at: try instant("2026-11-28 21:00", in: "Europe/Berlin")))  // Saturday night
        #expect(!weekend.isQuiet(at: try instant("2026-11-27 08:00", in: "Europe/Berlin")))  // Friday morning

        let lunch = NotificationSettings(
            timeZone: "UTC", quietHours: [QuietPeriod(start: "12:00", end: "13:00", days: [1, 7])])
        #expect(lunch.isQuiet(at: try instant("2026-11-23 12:30", in: "UTC")))
        #expect(!lunch.isQuiet(at: try instant("2026-11-24 12:30", in: "UTC")))
        #expect(lunch.isQuiet(at: try instant("2026-11-29 12:00", in: "UTC")))
        #expect(!NotificationSettings.defaults.isQuiet(at: 0))
    }

    @Test func updatesAreCheckedFieldByField() throws {
        let good = UpdateNotificationSettingsRequest(
            timeZone: "America/Sao_Paulo", quietHours: [QuietPeriod(start: "00:00", end: "23:59", days: [1, 2])])
        try NotificationRules.check(good)
        let bad: [UpdateNotificationSettingsRequest] = [
            .init(timeZone: ""), .init(timeZone: "Mars/Base"),
            .init(quietHours: [QuietPeriod(start: "7:00", end: "08:00")]),
            .init(quietHours: [QuietPeriod(start: "+7:00", end: "08:00")]),
            .init(quietHours: [QuietPeriod(start: "24:00", end: "08:00")]),
            .init(quietHours: [QuietPeriod(start: "08:60", end: "09:00")]),
            .init(quietHours: [QuietPeriod(start: "08:00", end: "08:00")]),
            .init(quietHours: [QuietPeriod(start: "08:00", end: "09:00", days: [])]),
            .init(quietHours: [QuietPeriod(start: "08:00", end: "09:00", days: [8])]),
            .init(quietHours: [QuietPeriod(start: "08:00", end: "09:00", days: [1, 1])]),
            .init(quietHours: Array(repeating: QuietPeriod(start: "08:00", end: "09:00"), count: 11)),
        ]
        for update in bad {
            #expect(throws: ParleyError.self, "\(update)") { try NotificationRules.check(update) }
        }
        let misspelt = #"{"quietHours":[{"start":"22:00","end":"07:00","day":[1]}]}"#
        #expect(throws: UnknownFieldError.self) {
            _ = try JSONDecoder().decode(Strict<UpdateNotificationSettingsRequest>.self, from: Data(misspelt.utf8))
        }
    }

    @Test func pushTokensAreChecked() throws {
        try NotificationRules.check(RegisterPushTokenRequest(platform: .apns, token: "A1b2", appId: "chat.parley-app"))
        let bad: [RegisterPushTokenRequest] = [
            .init(platform: "fcm", token: "ab", appId: "a.b"), .init(platform: .apns, token: "", appId: "a.b"),
            .init(platform: .apns, token: "xy", appId: "a.b"), .init(platform: .apns, token: "ab", appId: ""),
            .init(platform: .apns, token: "ab", appId: "a b"),
            .init(platform: .apns, token: String(repeating: "a", count: 201), appId: "a.b"),
        ]
        for request in bad {
            #expect(throws: ParleyError.self, "\(request)") { try NotificationRules.check(request) }
        }
    }

    @Test func presenceIsVisibleByTheRules() {
        #expect(PresenceRules.isVisible(.nobody, toSelf: true, isFriend: false, blockedEitherWay: true))
        #expect(!PresenceRules.isVisible(.everyone, toSelf: false, isFriend: true, blockedEitherWay: true))
        #expect(PresenceRules.isVisible(.everyone, toSelf: false, isFriend: false, blockedEitherWay: false))
        #expect(PresenceRules.isVisible(.contacts, toSelf: false, isFriend: true, blockedEitherWay: false))
        #expect(!PresenceRules.isVisible(.contacts, toSelf: false, isFriend: false, blockedEitherWay: false))
        #expect(!PresenceRules.isVisible(.nobody, toSelf: false, isFriend: true, blockedEitherWay: false))
        #expect(!PresenceRules.isVisible("later", toSelf: false, isFriend: true, blockedEitherWay: false))
    }
}
