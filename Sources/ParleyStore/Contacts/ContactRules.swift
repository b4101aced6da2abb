import ParleyCore

/// Who may befriend, answer and message whom. Each backend reads the facts and asks these.
public enum ContactRules {
    /// What a friend request does.
    public enum RequestDecision: Sendable, Equatable {
        /// They become friends now (the target takes anyone, or had asked the requester).
        case befriend
        /// A pending request waits for the target's answer.
        case ask
    }

    /// What the store read before a friend request.
    public struct RequestFacts: Sendable {
        public var requester: UserID
        public var targetId: UserID
        /// Nil when no such user exists.
        public var target: UserRecord?
        public var requesterBlockedTarget: Bool
        public var targetBlockedRequester: Bool
        public var friends: Bool
        /// The target has an open request to the requester.
        public var targetAskedRequester: Bool
        /// The requester has an open request to the target (a new one merges with it).
        public var requesterAskedTarget: Bool
        public var requesterFriendCount: Int
        public var targetFriendCount: Int
        /// Open requests the requester has sent.
        public var requesterOpenRequests: Int

        public init(
            requester: UserID, targetId: UserID, target: UserRecord?, requesterBlockedTarget: Bool,
            targetBlockedRequester: Bool, friends: Bool, targetAskedRequester: Bool, requesterAskedTarget: Bool,
            requesterFriendCount: Int, targetFriendCount: Int, requesterOpenRequests: Int
        ) {
            self.requester = requester
            self.targetId = targetId
            self.target = target
            self.requesterBlockedTarget = requesterBlockedTarget
            self.targetBlockedRequester = targetBlockedRequester
            self.friends = friends
            self.targetAskedRequester = targetAskedRequester
            self.requesterAskedTarget = requesterAskedTarget
            self.requesterFriendCount = requesterFriendCount
            self.targetFriendCount = targetFriendCount
            self.requesterOpenRequests = requesterOpenRequests
        }
    }

    /// Decides a friend request, or throws why it is refused.
    public static func decide(_ facts: RequestFacts) throws -> RequestDecision {
        guard facts.requester != facts.targetId else {
            throw ParleyError(.cannotAddSelf, "You cannot send a friend request to yourself.")
        }
        guard let target = facts.target else {
            throw ParleyError(.userNotFound, "User \(facts.targetId) does not exist.")
        }
        try checkNoBlock(requesterBlocked: facts.requesterBlockedTarget, blockedBy: facts.targetBlockedRequester)
        guard !facts.friends else {
            throw ParleyError(.alreadyFriends, "You and \(target.username) are friends already.")
        }
        if facts.targetAskedRequester || target.privacy.addMe == .anyone {
            try checkRoom(requesterFriends: facts.requesterFriendCount, otherFriends: facts.targetFriendCount)
            return .befriend
        }
        guard target.privacy.addMe != .nobody else {
            throw ParleyError(.notAcceptingRequests, "\(target.username) does not accept friend requests.")
        }
        guard facts.requesterAskedTarget || facts.requesterOpenRequests < ContactLimits.maxPendingOutgoing else {
            throw ParleyError(
                .tooManyPendingRequests,
                "You have \(ContactLimits.maxPendingOutgoing) friend requests waiting for an answer; wait for some "
                    + "to be answered or expire.")
        }
        return .ask
    }

    /// Checks that the recipient may answer `request`: it is theirs, still open, and
    /// accepting it breaks no block or limit. Answers false for an answer given already (a
    /// retry: accepted and still friends, rejected, or ignored and still open), which changes
    /// nothing.
    public static func checkAnswer(
        _ request: FriendRequestRecord?, by userId: UserID, _ answer: FriendRequestAnswer, at now: Int64,
        friends: Bool, blocked: (requesterBlocked: Bool, blockedBy: Bool), friendCounts: (mine: Int, theirs: Int)
    ) throws -> Bool {
        guard let request, request.toId == userId else {
            throw ParleyError(.friendRequestNotFound, "No such friend request to you.")
        }
        if (answer == .accept && request.status == .accepted && friends)
            || (answer == .reject && request.status == .rejected)
            || (answer == .ignore && request.status == .ignored && request.isOpen(at: now))
        {
            return false
        }
        guard request.isOpen(at: now) else {
            throw ParleyError(
                .friendRequestClosed,
                "This friend request is \(request.status(for: userId, at: now)); it can no longer be answered.")
        }
        guard answer == .accept else { return true }
        try checkNoBlock(requesterBlocked: blocked.requesterBlocked, blockedBy: blocked.blockedBy)
        try checkRoom(requesterFriends: friendCounts.mine, otherFriends: friendCounts.theirs)
        return true
    }

    /// Checks that nobody of `blocked` (those a block separates from the actor) is added to a
    /// group by them: a group is no way around a block.
    public static func checkCanAdd(blocked: Set<UserID>) throws {
        if let first = blocked.min() {
            throw ParleyError(
                .blocked, "User \(first) cannot be added to a group by you: one of you blocked the other.")
        }
    }

    /// Checks that `sender` may send a direct message to a peer, from what is stored of them.
    public static func checkCanMessage(
        peerPolicy: MessagePolicy, friends: Bool, senderBlockedPeer: Bool, peerBlockedSender: Bool,
        peerDeleted: Bool
    ) throws {
        if peerDeleted {
            throw ParleyError(.userNotFound, "This account was deleted; it cannot receive messages.")
        }
        if senderBlockedPeer {
            throw ParleyError(.blocked, "You blocked this user; unblock them to send them messages.")
        }
        if peerBlockedSender {
            throw ParleyError(.blocked, "This user does not accept messages from you.")
        }
        if peerPolicy == .friends && !friends {
            throw ParleyError(.notAFriend, "This user accepts direct messages from friends only.")
        }
    }

    /// Checks a new or renamed friend group against the owner's others (`others`: their names
    /// but the renamed group's own).
    public static func checkFriendGroup(named name: String, others: [String], creating: Bool) throws {
        guard !others.contains(name) else {
            throw ParleyError(.friendGroupExists, "You already have a friend group called '\(name)'.")
        }
        guard !creating || others.count < ContactLimits.maxFriendGroups else {
            throw ParleyError(
                .tooManyFriendGroups, "You have \(ContactLimits.maxFriendGroups) friend groups, the most allowed.")
        }
    }

    /// Checks that every group of `given` is one of the owner's (`owned`); answers them once each, in order.
    public static func checkGroups(_ given: [FriendGroupID], owned: Set<FriendGroupID>) throws -> [FriendGroupID] {
        if let unknown = given.first(where: { !owned.contains($0) }) {
            throw ParleyError(.friendGroupNotFound, "You have no friend group \(unknown).")
        }
        return Array(Set(given)).sorted()
    }

    /// A block either way refuses requests and their acceptance.
    private static func checkNoBlock(requesterBlocked: Bool, blockedBy: Bool) throws {
        if requesterBlocked {
            throw ParleyError(.blocked, "You blocked this user; unblock them first.")
        }
        if blockedBy {
            throw ParleyError(.blocked, "This user does not accept friend requests from you.")
        }
    }

    private static func checkRoom(requesterFriends: Int, otherFriends: Int) throws {
        guard requesterFriends < ContactLimits.maxFriends else {
            throw ParleyError(.tooManyFriends, "You have \(ContactLimits.maxFriends) friends, the most allowed.")
        }
        guard otherFriends < ContactLimits.maxFriends else {
            throw ParleyError(.tooManyFriends, "This user has \(ContactLimits.maxFriends) friends, the most allowed.")
        }
    }
}
