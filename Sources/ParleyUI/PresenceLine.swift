import Foundation
import ParleyCore

/// How a screen says whether someone is online: "online", "last seen 5 minutes ago",
/// "last seen today at 09:14", "last seen yesterday at 22:03", "last seen 2026-11-20",
/// "last seen a while ago" (offline, never seen since presence was kept), or nil when it
/// is hidden (show nothing rather than a guess).
public enum PresenceLine {
    /// `now` and `presence.lastSeenAt` are ms since 1970; days are counted in `timeZone`.
    public static func text(for presence: Presence, now: Int64, timeZone: TimeZone = .current) -> String? {
        switch presence.status {
        case .online:
            return "online"
        case .offline:
            guard let seen = presence.lastSeenAt else { return "last seen a while ago" }
            return "last seen " + moment(seen, now: now, timeZone: timeZone)
        default:
            return nil
        }
    }

    /// When something happened, as a person says it: "just now", "5 minutes ago", "today at
    /// 09:14", "yesterday at 22:03", "2026-11-20".
    public static func moment(_ then: Int64, now: Int64, timeZone: TimeZone = .current) -> String {
        let minutes = max(0, (now - then) / 60_000)
        if minutes < 1 { return "just now" }
        if minutes < 60 { return "\(minutes) minute\(minutes == 1 ? "" : "s") ago" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let date = Date(timeIntervalSince1970: Double(then) / 1000)
        let today = calendar.startOfDay(for: Date(timeIntervalSince1970: Double(now) / 1000))
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: date), to: today).day ?? 0
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        switch days {
        case ...0: return "today at \(time)"
        case 1: return "yesterday at \(time)"
        default: return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        }
    }
}
