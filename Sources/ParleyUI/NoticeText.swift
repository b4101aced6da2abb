import Foundation
import ParleyCore

/// The line a notice row shows, such as "alice removed bob", in English; apps with their
/// own wording switch over ``SystemNotice/event`` themselves.
public enum NoticeText {
    /// The sentence for `notice`; `name` gives a user's display name (the viewer's own id
    /// may answer "You").
    public static func describe(_ notice: SystemNotice, name: (UserID) -> String) -> String {
        let actor = notice.actorId.map(name) ?? "Someone"
        let users = notice.userIds.map(name).joined(separator: ", ")
        let text = notice.text ?? ""
        switch notice.event {
        case .memberJoined:
            return notice.userIds == [notice.actorId].compactMap({ $0 })
                ? "\(actor) joined" : "\(actor) added \(users)"
        case .memberLeft: return "\(actor) left"
        case .memberRemoved: return "\(actor) removed \(users)"
        case .memberMuted: return "\(actor) muted \(users) \(until(notice.until))"
        case .memberUnmuted: return "\(actor) unmuted \(users)"
        case .adminAdded: return "\(actor) made \(users) an admin"
        case .adminRemoved: return "\(actor) removed \(users) as admin"
        case .muteAllOn: return "\(actor) muted everyone but admins"
        case .muteAllOff: return "\(actor) let everyone send again"
        case .mentionAllOpened: return "\(actor) let everyone mention @all"
        case .mentionAllRestricted: return "\(actor) left @all to admins"
        case .groupRenamed: return "\(actor) renamed the group to “\(text)”"
        case .descriptionUpdated: return "\(actor) changed the description"
        case .avatarUpdated: return "\(actor) changed the group picture"
        case .announcementUpdated:
            return text.isEmpty ? "\(actor) cleared the announcement" : "\(actor) posted an announcement: \(text)"
        case .joinPolicyUpdated: return "\(actor) set joining to \(policy(text))"
        case .ownerTransferred: return "\(actor) made \(users) the owner"
        case .groupDissolved: return "\(actor) dissolved the group"
        default: return "\(actor): \(notice.event.rawValue)"
        }
    }

    private static func until(_ time: Int64?) -> String {
        guard let time, time < Limits.mutedUntilLifted else { return "until further notice" }
        return "until "
            + Date(timeIntervalSince1970: Double(time) / 1000).formatted(date: .abbreviated, time: .shortened)
    }

    private static func policy(_ raw: String) -> String {
        switch JoinPolicy(rawValue: raw) {
        case .open: "open to anyone with an invitation"
        case .approval: "needs an admin's approval"
        case .inviteOnly: "by admins' invitation only"
        case nil: raw
        }
    }
}
