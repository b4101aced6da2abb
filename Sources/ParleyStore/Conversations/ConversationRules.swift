import ParleyCore

/// Who may do what to a conversation, and whom a change is announced to. Backends read the
/// facts (members, kind, which users exist), ask these rules, and write what they decide,
/// in the transaction that read the facts.
public enum ConversationRules {
    /// Throws `not_a_member` unless `userId` is among `members` of conversation `id`.
    public static func requireMember(_ userId: UserID, of members: [UserID], in id: ConversationID) throws {
        guard members.contains(userId) else { throw ParleyError.notAMember(of: id) }
    }

    /// A direct conversation is between two different users.
    public static func checkDirectPair(_ userId: UserID, _ peerId: UserID) throws {
        guard userId != peerId else {
            throw ParleyError(.invalidField, "A direct conversation needs another user.")
        }
    }

    /// The members a new group gets besides its owner: each requested user once, in id order.
    public static func groupMembers(owner: UserID, requested: [UserID]) -> [UserID] {
        Set(requested).subtracting([owner]).sorted()
    }

    /// The users an addition actually adds (those not yet members, in id order). Only groups
    /// take members.
    public static func membersToAdd(_ requested: [UserID], to kind: ConversationKind, current: [UserID]) throws
        -> [UserID]
    {
        guard kind == .group else { throw ParleyError(.forbidden, "Members can be added to groups only.") }
        return Set(requested).subtracting(current).sorted()
    }

    /// Throws `group_full` when a group would have more than `limit` members. Checked after
    /// ``requireExisting(_:existing:)``: a missing user is the first mistake named.
    public static func checkCapacity(_ memberCount: Int, limit: Int) throws {
        guard memberCount <= limit else { throw ParleyError.groupFull(limit: limit) }
    }

    /// The kind of a stored conversation; anything but a group counts as direct, so that no
    /// group-only operation is allowed on a row it cannot read.
    public static func kind(stored: String?) -> ConversationKind {
        stored == ConversationKind.group.rawValue ? .group : .direct
    }

    /// Why a user gets no summary of conversation `id`: it exists and they are not in it, or
    /// it does not exist.
    public static func noSummary(of id: ConversationID, exists: Bool) -> ParleyError {
        exists
            ? ParleyError.notAMember(of: id) : ParleyError(.conversationNotFound, "Conversation \(id) does not exist.")
    }

    /// How far a user may read a conversation's history: all of it (nil) as a member, up to
    /// `formerReadUpTo` as a former member (someone who left or was removed), else nothing
    /// (the error of ``noSummary(of:exists:)``).
    public static func readableUpTo(
        _ id: ConversationID, isMember: Bool, formerReadUpTo: Int64?, exists: Bool
    ) throws -> Int64? {
        if isMember { return nil }
        if let formerReadUpTo { return formerReadUpTo }
        throw noSummary(of: id, exists: exists)
    }

    /// Throws `user_not_found` naming the first of `ids` (in order) missing from `existing`.
    public static func requireExisting(_ ids: [UserID], existing: Set<UserID>) throws {
        if let missing = ids.first(where: { !existing.contains($0) }) {
            throw ParleyError(.userNotFound, "User \(missing) does not exist.")
        }
    }

    /// The events of users joining conversation `id`: `conversation.added` for each of them.
    /// Those already in it hear of the join from its `member.joined` notice, stored once in
    /// the conversation's seq, not from an event in each of their streams.
    public static func joinAnnouncements(_ joined: [UserID], to id: ConversationID) -> [Announcement] {
        [Announcement(to: joined, ConversationAdded(conversationId: id).body)]
    }
}

/// One event body to append to several users' streams, each user's once.
public struct Announcement: Sendable {
    /// Each user once, in the order first given.
    public let users: [UserID]
    public let body: UserEventBody

    public init(to users: [UserID], _ body: UserEventBody) {
        var seen = Set<UserID>()
        self.users = users.filter { seen.insert($0).inserted }
        self.body = body
    }
}
