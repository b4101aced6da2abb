import Foundation
import ParleyCore
import ParleyUI
import Testing

@Suite struct PresenceLineTests {
    let utc = TimeZone(identifier: "UTC")!
    /// 2026-11-23 12:00 UTC.
    let now: Int64 = 1_795_435_200_000

    func line(_ status: PresenceStatus, seenMinutesAgo minutes: Int64? = nil, zone: TimeZone? = nil) -> String? {
        PresenceLine.text(
            for: Presence(userId: UserID(1), status: status, lastSeenAt: minutes.map { now - $0 * 60_000 }), now: now,
            timeZone: zone ?? utc)
    }

    @Test func saysOnlineOrWhenLastSeenAndNothingWhenHidden() {
        #expect(line(.online) == "online")
        #expect(line(.hidden) == nil)
        #expect(line("later") == nil)
        #expect(line(.offline) == "last seen a while ago")
        #expect(line(.offline, seenMinutesAgo: 0) == "last seen just now")
        #expect(line(.offline, seenMinutesAgo: 1) == "last seen 1 minute ago")
        #expect(line(.offline, seenMinutesAgo: 59) == "last seen 59 minutes ago")
        #expect(line(.offline, seenMinutesAgo: 120) == "last seen today at 10:00")
        #expect(line(.offline, seenMinutesAgo: 14 * 60) == "last seen yesterday at 22:00")
        #expect(line(.offline, seenMinutesAgo: 3 * 24 * 60) == "last seen 2026-11-20")
        // Days are the viewer's: 10:00 UTC is 18:00 the same day in Shanghai.
        #expect(
            line(.offline, seenMinutesAgo: 120, zone: TimeZone(identifier: "Asia/Shanghai"))
                == "last seen today at 18:00")
    }
}
