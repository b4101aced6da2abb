import ParleyCore
import ParleyKit

/// Who may recall or edit a message, by the server's rules, so that a menu offers only what
/// will be accepted: one's own message within the window (recall: ``MessageWindows/recallMs``,
/// edit of a text or reply: ``MessageWindows/editMs``); in a group, the owner recalls any
/// message at any time, an admin their own and plain members' ones.
public struct MessagePermissions: Hashable, Sendable {
    public var viewerId: UserID
    /// In a group, the members' roles; nil in a direct conversation.
    public var roles: [UserID: MemberRole]?
    public var windows: MessageWindows
    /// The time now (ms since 1970).
    public var now: Int64

    public init(viewerId: UserID, roles: [UserID: MemberRole]? = nil, windows: MessageWindows, now: Int64) {
        self.viewerId = viewerId
        self.roles = roles
        self.windows = windows
        self.now = now
    }

    /// Whether the viewer may recall `item` (committed, not recalled, not a notice).
    public func mayRecall(_ item: ChatItem) -> Bool {
        guard MessageMenu.isActionable(item) else { return false }
        switch roles?[viewerId] {
        case .owner?: return true
        case .admin?: if item.senderId == viewerId || roles?[item.senderId] == .member { return true }
        default: break
        }
        return item.senderId == viewerId && now - item.time <= windows.recallMs
    }

    /// Whether the viewer may edit `item`: their own text or reply, within the edit window.
    public func mayEdit(_ item: ChatItem) -> Bool {
        guard MessageMenu.isActionable(item), item.senderId == viewerId, item.kind == .text || item.kind == .reply
        else { return false }
        return now - item.time <= windows.editMs
    }
}
