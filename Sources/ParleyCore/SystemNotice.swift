/// What a system message records, as a string so that newer notices pass through older
/// clients (which show them generically).
public struct SystemEvent: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `userIds` joined (`actorId` invited them, approved them, or is the one who used a link).
    public static let memberJoined: SystemEvent = "member.joined"
    /// `actorId` left.
    public static let memberLeft: SystemEvent = "member.left"
    /// `actorId` removed `userIds`.
    public static let memberRemoved: SystemEvent = "member.removed"
    /// `actorId` muted `userIds` until `until`.
    public static let memberMuted: SystemEvent = "member.muted"
    /// `actorId` lifted the mute of `userIds`.
    public static let memberUnmuted: SystemEvent = "member.unmuted"
    /// `actorId` made `userIds` admins.
    public static let adminAdded: SystemEvent = "admin.added"
    /// `actorId` made `userIds` plain members again.
    public static let adminRemoved: SystemEvent = "admin.removed"
    /// `actorId` turned mute-all on.
    public static let muteAllOn: SystemEvent = "mute_all.on"
    /// `actorId` turned mute-all off.
    public static let muteAllOff: SystemEvent = "mute_all.off"
    /// `actorId` let every member mention everyone (`@all`).
    public static let mentionAllOpened: SystemEvent = "mention_all.everyone"
    /// `actorId` left `@all` to the owner and admins again.
    public static let mentionAllRestricted: SystemEvent = "mention_all.admins"
    /// `actorId` renamed the group to `text`.
    public static let groupRenamed: SystemEvent = "group.renamed"
    /// `actorId` changed the description to `text`.
    public static let descriptionUpdated: SystemEvent = "description.updated"
    /// `actorId` changed the avatar.
    public static let avatarUpdated: SystemEvent = "avatar.updated"
    /// `actorId` set the announcement to `text` (empty: cleared it).
    public static let announcementUpdated: SystemEvent = "announcement.updated"
    /// `actorId` set the join policy to `text`.
    public static let joinPolicyUpdated: SystemEvent = "join_policy.updated"
    /// `actorId` handed ownership to `userIds[0]`.
    public static let ownerTransferred: SystemEvent = "owner.transferred"
    /// `actorId` dissolved the group.
    public static let groupDissolved: SystemEvent = "group.dissolved"
}

/// The content of a `system` message: a change to the group, written by the server into the
/// conversation's seq so that history shows it in order. Clients cannot send these.
public struct SystemNotice: Codable, Sendable, Hashable {
    public var event: SystemEvent
    /// Who made the change.
    public var actorId: UserID?
    /// Whom it is about.
    public var userIds: [UserID]
    /// The new name, description, announcement or join policy.
    public var text: String?
    /// The end of a mute (ms since the epoch).
    public var until: Int64?

    public init(
        _ event: SystemEvent, by actorId: UserID?, about userIds: [UserID] = [], text: String? = nil,
        until: Int64? = nil
    ) {
        self.event = event
        self.actorId = actorId
        self.userIds = userIds
        self.text = text
        self.until = until
    }
}
