import ParleyCore
import ParleyKit

/// Who may recall or edit a message, by the server's rules, so that a menu offers only what
/// will be accepted: one's own message within the window (recall: ``MessageWindows/recallMs``,
/// edit of a text or reply: ``MessageWindows/editMs``); in a group, the owner recalls any
/// message at any time, an admin their own and plain members' ones (a sender who is no
/// longer a member counts as a plain member). Nothing is recalled or edited in a dissolved
/// group, and a user who may not send (muted, or the group muted for plain members) may not
/// edit either.
public struct MessagePermissions: Hashable, Sendable {
    public var viewerId: UserID
    /// In a group, the current members' roles; nil in a direct conversation.
    public var roles: [UserID: MemberRole]?
    public var windows: MessageWindows
    /// The time now (ms since 1970).
    public var now: Int64
    /// Until when the viewer is muted in the group (ms since 1970), if they are.
    public var viewerMutedUntil: Int64?
    /// Whether the group lets only its owner and admins send.
    public var muteAll: Bool
    /// Whether the group was dissolved (it is read-only).
    public var isDissolved: Bool

    public init(
        viewerId: UserID, roles: [UserID: MemberRole]? = nil, windows: MessageWindows, now: Int64,
        viewerMutedUntil: Int64? = nil, muteAll: Bool = false, isDissolved: Bool = false
    ) {
        self.viewerId = viewerId
        self.roles = roles
        self.windows = windows
        self.now = now
        self.viewerMutedUntil = viewerMutedUntil
        self.muteAll = muteAll
        self.isDissolved = isDissolved
    }

    /// The permissions in a group as this device knows it (``Groups/observe(_:)``).
    public init(viewerId: UserID, group: GroupSnapshot, windows: MessageWindows, now: Int64) {
        self.init(
            viewerId: viewerId,
            roles: Dictionary(group.members.map { ($0.userId, $0.role) }, uniquingKeysWith: { _, last in last }),
            windows: windows, now: now,
            viewerMutedUntil: group.members.first { $0.userId == viewerId }?.mutedUntil,
            muteAll: group.profile?.muteAll ?? false, isDissolved: group.profile?.dissolvedAt != nil)
    }

    /// Whether the viewer may recall `item` (committed, not recalled, not a notice).
    public func mayRecall(_ item: ChatItem) -> Bool {
        guard MessageMenu.isActionable(item), !isDissolved else { return false }
        switch roles?[viewerId] {
        case .owner?: return true
        case .admin?:
            // The server counts a sender who left the group as a plain member.
            if item.senderId == viewerId || (roles?[item.senderId] ?? .member) == .member { return true }
        default: break
        }
        return item.senderId == viewerId && now - item.time <= windows.recallMs
    }

    /// Whether the viewer may edit `item`: their own text or reply, within the edit window,
    /// while they may send.
    public func mayEdit(_ item: ChatItem) -> Bool {
        guard MessageMenu.isActionable(item), item.senderId == viewerId, item.kind == .text || item.kind == .reply,
            !isDissolved, mayStillSend
        else { return false }
        return now - item.time <= windows.editMs
    }

    /// Whether the viewer is not muted: the server checks an edit like a send.
    private var mayStillSend: Bool {
        if let until = viewerMutedUntil, until > now { return false }
        return !(muteAll && (roles?[viewerId] ?? .member) == .member)
    }
}
