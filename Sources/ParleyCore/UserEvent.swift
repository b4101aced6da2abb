/// The type of an entry in a user's event stream, as a string so that newer types pass
/// through older clients.
public struct UserEventType: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The user became a member of a conversation (created it, was added, or a direct one opened).
    public static let conversationAdded: UserEventType = "conversation.added"
    /// The user's own read watermark moved, on any of their devices.
    public static let readMoved: UserEventType = "read.moved"
    /// The user's own profile changed.
    public static let profileUpdated: UserEventType = "profile.updated"
    /// A group the user is in changed its profile (name, description, announcement, policy,
    /// mute-all, owner, dissolution).
    public static let conversationUpdated: UserEventType = "conversation.updated"
    /// Members of a conversation the user is in changed role, mute or group nickname.
    public static let membersUpdated: UserEventType = "members.updated"
    /// Others left or were removed from a conversation the user is in.
    public static let membersRemoved: UserEventType = "members.removed"
    /// The user left or was removed from a conversation.
    public static let conversationRemoved: UserEventType = "conversation.removed"
    /// A join request was filed, merged or resolved (to its user, the owner and the admins).
    public static let joinRequestUpdated: UserEventType = "join_request.updated"
    /// The user's own settings for a conversation changed, on any of their devices.
    public static let settingsUpdated: UserEventType = "settings.updated"
    /// A message in a conversation the user is in was recalled or edited.
    public static let messageUpdated: UserEventType = "message.updated"
    /// The user deleted messages for themselves, on any of their devices.
    public static let messagesDeleted: UserEventType = "messages.deleted"
    /// A friend request to or from the user was sent, merged or answered.
    public static let friendRequestUpdated: UserEventType = "friend_request.updated"
    /// A friend was added, changed their profile, or got a new remark from the user.
    public static let contactUpdated: UserEventType = "contact.updated"
    /// A friendship ended (either side removed it, or one blocked the other).
    public static let contactRemoved: UserEventType = "contact.removed"
    /// The user blocked someone, on any of their devices.
    public static let blockAdded: UserEventType = "block.added"
    /// The user unblocked someone, on any of their devices.
    public static let blockRemoved: UserEventType = "block.removed"
    /// The user made or renamed a friend group, on any of their devices.
    public static let friendGroupUpdated: UserEventType = "friend_group.updated"
    /// The user deleted a friend group (its friends stay friends, out of it).
    public static let friendGroupRemoved: UserEventType = "friend_group.removed"
    /// The user's notification preferences changed, on any of their devices.
    public static let notificationsUpdated: UserEventType = "notifications.updated"
}

/// One entry of a user's ordered event stream (the "command list" of SPEC 3).
///
/// On the wire an event is one flat object: `seq`, `type`, `at` and the fields of its
/// payload. A type this version does not know (or a known one whose payload it cannot read)
/// decodes as ``UserEventBody/unknown(_:fields:)`` and encodes back unchanged, so clients keep
/// going and servers relay it.
public struct UserEvent: Codable, Hashable, Sendable {
    /// Position in this user's stream: dense and strictly increasing.
    public var seq: Int64
    public var at: Int64
    public var body: UserEventBody

    public var type: UserEventType { body.type }

    public init(seq: Int64, at: Int64, _ body: UserEventBody) {
        self.seq = seq
        self.at = at
        self.body = body
    }

    private enum CodingKeys: String, CodingKey {
        case seq, type, at
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int64.self, forKey: .seq)
        at = try container.decode(Int64.self, forKey: .at)
        body = try UserEventBody(type: try container.decode(UserEventType.self, forKey: .type), from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(type, forKey: .type)
        try container.encode(at, forKey: .at)
        try body.encodePayload(to: encoder)
    }
}

/// What an event says, one typed payload per ``UserEventType``. To add an event: a payload
/// type below, a case here, and its line in ``payloadTypes``.
public enum UserEventBody: Hashable, Sendable {
    case conversationAdded(ConversationAdded)
    case readMoved(ReadMoved)
    case profileUpdated(ProfileUpdated)
    case conversationUpdated(ConversationUpdated)
    case membersUpdated(MembersUpdated)
    case membersRemoved(MembersRemoved)
    case conversationRemoved(ConversationRemoved)
    case joinRequestUpdated(JoinRequestUpdated)
    case settingsUpdated(SettingsUpdated)
    case messageUpdated(MessageUpdated)
    case messagesDeleted(MessagesDeleted)
    case friendRequestUpdated(FriendRequestUpdated)
    case contactUpdated(ContactUpdated)
    case contactRemoved(ContactRemoved)
    case blockAdded(BlockAdded)
    case blockRemoved(BlockRemoved)
    case friendGroupUpdated(FriendGroupUpdated)
    case friendGroupRemoved(FriendGroupRemoved)
    case notificationsUpdated(NotificationsUpdated)
    /// A type this version does not know, with its payload fields as they arrived.
    case unknown(UserEventType, fields: [String: JSONValue])

    /// Every known payload type, by the event type it carries.
    private static let payloadTypes: [UserEventType: any UserEventPayload.Type] = [
        .conversationAdded: ConversationAdded.self,
        .readMoved: ReadMoved.self,
        .profileUpdated: ProfileUpdated.self,
        .conversationUpdated: ConversationUpdated.self,
        .membersUpdated: MembersUpdated.self,
        .membersRemoved: MembersRemoved.self,
        .conversationRemoved: ConversationRemoved.self,
        .joinRequestUpdated: JoinRequestUpdated.self,
        .settingsUpdated: SettingsUpdated.self,
        .messageUpdated: MessageUpdated.self,
        .messagesDeleted: MessagesDeleted.self,
        .friendRequestUpdated: FriendRequestUpdated.self,
        .contactUpdated: ContactUpdated.self,
        .contactRemoved: ContactRemoved.self,
        .blockAdded: BlockAdded.self,
        .blockRemoved: BlockRemoved.self,
        .friendGroupUpdated: FriendGroupUpdated.self,
        .friendGroupRemoved: FriendGroupRemoved.self,
        .notificationsUpdated: NotificationsUpdated.self,
    ]

    public var type: UserEventType {
        switch self {
        case .unknown(let type, _): type
        default: payload.map { Swift.type(of: $0).type } ?? ""
        }
    }

    /// The typed payload; nil for an unknown type.
    public var payload: (any UserEventPayload)? {
        switch self {
        case .conversationAdded(let payload): payload
        case .readMoved(let payload): payload
        case .profileUpdated(let payload): payload
        case .conversationUpdated(let payload): payload
        case .membersUpdated(let payload): payload
        case .membersRemoved(let payload): payload
        case .conversationRemoved(let payload): payload
        case .joinRequestUpdated(let payload): payload
        case .settingsUpdated(let payload): payload
        case .messageUpdated(let payload): payload
        case .messagesDeleted(let payload): payload
        case .friendRequestUpdated(let payload): payload
        case .contactUpdated(let payload): payload
        case .contactRemoved(let payload): payload
        case .blockAdded(let payload): payload
        case .blockRemoved(let payload): payload
        case .friendGroupUpdated(let payload): payload
        case .friendGroupRemoved(let payload): payload
        case .notificationsUpdated(let payload): payload
        case .unknown: nil
        }
    }

    /// The conversation the event is about, when it is about one.
    public var conversationId: ConversationID? { (payload as? any ConversationEventPayload)?.conversationId }

    /// A known type whose payload does not decode (a newer server may change a field this
    /// version requires) is kept as unknown too: one event must never stop a sync.
    init(type: UserEventType, from decoder: any Decoder) throws {
        if let payloadType = Self.payloadTypes[type], let payload = try? payloadType.init(from: decoder) {
            self = payload.body
            return
        }
        var fields: [String: JSONValue] = [:]
        if case .object(let object) = try JSONValue(from: decoder) { fields = object }
        for key in ["seq", "type", "at"] { fields[key] = nil }
        self = .unknown(type, fields: fields)
    }

    func encodePayload(to encoder: any Encoder) throws {
        switch self {
        case .unknown(_, let fields):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in fields { try container.encode(value, forKey: AnyCodingKey(stringValue: key)) }
        default:
            try payload?.encode(to: encoder)
        }
    }
}

/// The payload of one event type: its fields sit beside `seq`, `type` and `at`.
public protocol UserEventPayload: Codable, Hashable, Sendable {
    static var type: UserEventType { get }
    /// The payload wrapped as an event body.
    var body: UserEventBody { get }
}

/// A payload about one conversation.
public protocol ConversationEventPayload: UserEventPayload {
    var conversationId: ConversationID { get }
}

/// `conversation.added`: the user became a member of `conversationId`.
public struct ConversationAdded: ConversationEventPayload {
    public static let type = UserEventType.conversationAdded
    public var conversationId: ConversationID
    public init(conversationId: ConversationID) { self.conversationId = conversationId }
    public var body: UserEventBody { .conversationAdded(self) }
}

/// `read.moved`: the user's own read watermark in `conversationId` is now `readSeq`.
public struct ReadMoved: ConversationEventPayload {
    public static let type = UserEventType.readMoved
    public var conversationId: ConversationID
    public var readSeq: Int64
    public init(conversationId: ConversationID, readSeq: Int64) {
        self.conversationId = conversationId
        self.readSeq = readSeq
    }
    public var body: UserEventBody { .readMoved(self) }
}

/// `profile.updated`: the user's own profile, as it now stands.
public struct ProfileUpdated: UserEventPayload {
    public static let type = UserEventType.profileUpdated
    public var account: Account
    public init(account: Account) { self.account = account }
    public var body: UserEventBody { .profileUpdated(self) }
}

/// `conversation.updated`: `updatedBy` changed the profile of group `conversationId`;
/// `name` and `group` are as they now stand.
public struct ConversationUpdated: ConversationEventPayload {
    public static let type = UserEventType.conversationUpdated
    public var conversationId: ConversationID
    public var name: String
    public var updatedBy: UserID
    public var group: GroupProfile?
    public init(conversationId: ConversationID, group: GroupProfile, updatedBy: UserID) {
        self.conversationId = conversationId
        self.name = group.name
        self.updatedBy = updatedBy
        self.group = group
    }
    public var body: UserEventBody { .conversationUpdated(self) }
}

/// `members.updated`: `updatedBy` changed these members of `conversationId` (role, mute or
/// group nickname); each is as it now stands.
public struct MembersUpdated: ConversationEventPayload {
    public static let type = UserEventType.membersUpdated
    public var conversationId: ConversationID
    public var members: [Member]
    public var updatedBy: UserID
    public init(conversationId: ConversationID, members: [Member], updatedBy: UserID) {
        self.conversationId = conversationId
        self.members = members
        self.updatedBy = updatedBy
    }
    public var body: UserEventBody { .membersUpdated(self) }
}

/// Why someone is no longer in a conversation.
public enum RemovalReason: String, Codable, Sendable, Hashable {
    /// They left by themselves.
    case left
    /// The owner or an admin removed them.
    case removed
}

/// `members.removed`: `userIds` are no longer in `conversationId`, as of its seq `lastSeq`.
///
/// Joins have no event of their own: members learn of them from the conversation's
/// `member.joined` notices, so that a group growing by one costs one stored message, not an
/// event for every member. Removals are notices too (`member.left`, `member.removed`); this
/// event also tells the members who stay, and places the removal in the conversation's seq so
/// that it orders against the notices.
public struct MembersRemoved: ConversationEventPayload {
    public static let type = UserEventType.membersRemoved
    public var conversationId: ConversationID
    public var userIds: [UserID]
    public var reason: RemovalReason
    /// Who removed them (themselves when they left).
    public var removedBy: UserID
    /// The seq of the notice of the removal (`member.left`, `member.removed`), or the group's
    /// `maxSeq` when they left a dissolved group (which takes no notice). Absent from events
    /// stored before it was added.
    public var lastSeq: Int64?
    public init(
        conversationId: ConversationID, userIds: [UserID], reason: RemovalReason, removedBy: UserID, lastSeq: Int64?
    ) {
        self.conversationId = conversationId
        self.userIds = userIds
        self.reason = reason
        self.removedBy = removedBy
        self.lastSeq = lastSeq
    }
    public var body: UserEventBody { .membersRemoved(self) }
}

/// `conversation.removed`: the user is no longer in `conversationId`. The server no longer
/// lists it or sends its messages; their history stays readable up to `lastSeq` (the notice
/// of the removal), so a device that was away fetches what it missed and keeps it, read-only.
public struct ConversationRemoved: ConversationEventPayload {
    public static let type = UserEventType.conversationRemoved
    public var conversationId: ConversationID
    public var reason: RemovalReason
    public var removedBy: UserID
    /// The last seq the user may still read.
    public var lastSeq: Int64
    public init(conversationId: ConversationID, reason: RemovalReason, removedBy: UserID, lastSeq: Int64) {
        self.conversationId = conversationId
        self.reason = reason
        self.removedBy = removedBy
        self.lastSeq = lastSeq
    }
    public var body: UserEventBody { .conversationRemoved(self) }
}

/// `join_request.updated`: a join request as it now stands.
public struct JoinRequestUpdated: ConversationEventPayload {
    public static let type = UserEventType.joinRequestUpdated
    public var conversationId: ConversationID
    public var request: JoinRequest
    public init(request: JoinRequest) {
        self.conversationId = request.conversationId
        self.request = request
    }
    public var body: UserEventBody { .joinRequestUpdated(self) }
}

/// `settings.updated`: the user's own settings for `conversationId`, as they now stand.
public struct SettingsUpdated: ConversationEventPayload {
    public static let type = UserEventType.settingsUpdated
    public var conversationId: ConversationID
    public var settings: ConversationSettings
    public init(conversationId: ConversationID, settings: ConversationSettings) {
        self.conversationId = conversationId
        self.settings = settings
    }
    public var body: UserEventBody { .settingsUpdated(self) }
}

/// `message.updated`: a message was recalled (kind `recalled`, content gone) or its text
/// edited (`editedAt` set); `message` is as it now stands and replaces the one a device holds.
/// `updatedBy` is who recalled or edited it.
public struct MessageUpdated: ConversationEventPayload {
    public static let type = UserEventType.messageUpdated
    public var conversationId: ConversationID
    public var message: Message
    public var updatedBy: UserID
    public init(message: Message, updatedBy: UserID) {
        self.conversationId = message.conversationId
        self.message = message
        self.updatedBy = updatedBy
    }
    public var body: UserEventBody { .messageUpdated(self) }
}

/// `messages.deleted`: the user deleted these messages of `conversationId` for themselves.
public struct MessagesDeleted: ConversationEventPayload {
    public static let type = UserEventType.messagesDeleted
    public var conversationId: ConversationID
    public var seqs: [Int64]
    public init(conversationId: ConversationID, seqs: [Int64]) {
        self.conversationId = conversationId
        self.seqs = seqs
    }
    public var body: UserEventBody { .messagesDeleted(self) }
}

/// `friend_request.updated`: a request to or from the user, as it now stands for them.
public struct FriendRequestUpdated: UserEventPayload {
    public static let type = UserEventType.friendRequestUpdated
    public var request: FriendRequest
    public init(request: FriendRequest) { self.request = request }
    public var body: UserEventBody { .friendRequestUpdated(self) }
}

/// `contact.updated`: a friend as the user now sees them (new, or a changed profile or remark).
public struct ContactUpdated: UserEventPayload {
    public static let type = UserEventType.contactUpdated
    public var contact: Contact
    public init(contact: Contact) { self.contact = contact }
    public var body: UserEventBody { .contactUpdated(self) }
}

/// `contact.removed`: `userId` is no longer the user's friend.
public struct ContactRemoved: UserEventPayload {
    public static let type = UserEventType.contactRemoved
    public var userId: UserID
    public init(userId: UserID) { self.userId = userId }
    public var body: UserEventBody { .contactRemoved(self) }
}

/// `block.added`: the user blocked `blocked.user`.
public struct BlockAdded: UserEventPayload {
    public static let type = UserEventType.blockAdded
    public var blocked: BlockedUser
    public init(blocked: BlockedUser) { self.blocked = blocked }
    public var body: UserEventBody { .blockAdded(self) }
}

/// `block.removed`: the user unblocked `userId`.
public struct BlockRemoved: UserEventPayload {
    public static let type = UserEventType.blockRemoved
    public var userId: UserID
    public init(userId: UserID) { self.userId = userId }
    public var body: UserEventBody { .blockRemoved(self) }
}

/// `friend_group.updated`: the user's friend group as it now stands (new or renamed).
public struct FriendGroupUpdated: UserEventPayload {
    public static let type = UserEventType.friendGroupUpdated
    public var group: FriendGroup
    public init(group: FriendGroup) { self.group = group }
    public var body: UserEventBody { .friendGroupUpdated(self) }
}

/// `friend_group.removed`: the user deleted friend group `groupId`; no friend is in it any more.
public struct FriendGroupRemoved: UserEventPayload {
    public static let type = UserEventType.friendGroupRemoved
    public var groupId: FriendGroupID
    public init(groupId: FriendGroupID) { self.groupId = groupId }
    public var body: UserEventBody { .friendGroupRemoved(self) }
}

/// `notifications.updated`: the user's notification preferences as they now stand.
public struct NotificationsUpdated: UserEventPayload {
    public static let type = UserEventType.notificationsUpdated
    public var settings: NotificationSettings
    public init(settings: NotificationSettings) { self.settings = settings }
    public var body: UserEventBody { .notificationsUpdated(self) }
}
