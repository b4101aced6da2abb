import ParleyCore

/// The facts about one conversation that ``GroupRules`` decides on, read by a backend in
/// the transaction that will write the decision.
public struct GroupState: Sendable {
    public var id: ConversationID
    public var kind: ConversationKind
    /// The conversation's last seq before the change.
    public var maxSeq: Int64
    /// Nil for a direct conversation.
    public var profile: GroupProfile?
    public var members: [Member]
    /// The group's invite links.
    public var links: [InviteLink]
    /// The pending join requests.
    public var pendingRequests: [JoinRequest]
    /// Which of ``GroupChange/usersToCheck`` exist.
    public var existingUsers: Set<UserID>
    /// Which of ``GroupChange/usersToCheck`` blocked the actor or were blocked by them.
    public var blockedUsers: Set<UserID>

    public init(
        id: ConversationID, kind: ConversationKind, maxSeq: Int64, profile: GroupProfile?, members: [Member],
        links: [InviteLink] = [],
        pendingRequests: [JoinRequest] = [], existingUsers: Set<UserID> = [], blockedUsers: Set<UserID> = []
    ) {
        self.blockedUsers = blockedUsers
        self.id = id
        self.kind = kind
        self.maxSeq = maxSeq
        self.profile = profile
        self.members = members
        self.links = links
        self.pendingRequests = pendingRequests
        self.existingUsers = existingUsers
    }

    public func member(_ userId: UserID) -> Member? { members.first { $0.userId == userId } }

    /// The group's link with `code`.
    public func link(_ code: String) -> InviteLink? { links.first { $0.code == code } }

    /// The owner and the admins: who hears about join requests.
    public var managers: [UserID] { members.filter { $0.role != .member }.map(\.userId) }
}

/// What a group change writes, decided by ``GroupRules``; a backend applies it (unless it is
/// empty) in this
/// order: profile, new members, member updates, links, requests, notices (as system
/// messages to ``noticeRecipients``), removals (each remembered as a former member who may
/// read up to ``removedReadUpTo``), announcements.
public struct GroupEffects: Sendable {
    /// The whole new profile, when it changed.
    public var profile: GroupProfile?
    public var added: [UserID] = []
    /// Members whose role, mute or nickname changed, as they now stand.
    public var updatedMembers: [Member] = []
    public var removed: [UserID] = []
    /// The last seq those removed may still read (the last notice of the change).
    public var removedReadUpTo: Int64 = 0
    /// Links to insert or update (by code).
    public var links: [InviteLink] = []
    /// Requests to insert or replace (by conversation and user).
    public var requests: [JoinRequest] = []
    public var notices: [SystemNotice] = []
    /// Who receives the notices: the members after the additions, before the removals.
    public var noticeRecipients: [UserID] = []
    public var announcements: [Announcement] = []

    public init(profile: GroupProfile? = nil) { self.profile = profile }

    /// Whether the member list changes (which invalidates cached member lists).
    public var changesMembership: Bool { !added.isEmpty || !removed.isEmpty }

    /// Whether there is nothing to write.
    public var isEmpty: Bool {
        profile == nil && added.isEmpty && updatedMembers.isEmpty && removed.isEmpty && links.isEmpty
            && requests.isEmpty && notices.isEmpty && announcements.isEmpty
    }
}

/// What a group change tells its caller.
public struct GroupOutcome: Sendable, Hashable {
    /// The link created, revoked or used.
    public var link: InviteLink?
    /// The join request filed or resolved.
    public var request: JoinRequest?
    /// Whom the change made members, as they now stand.
    public var added: [Member] = []
    /// The conversation seq of the change's last notice, once a backend wrote it; nil when
    /// the change wrote none.
    public var noticeSeq: Int64?

    public init(link: InviteLink? = nil, request: JoinRequest? = nil) {
        self.link = link
        self.request = request
    }
}
