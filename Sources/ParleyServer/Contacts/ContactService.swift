import ParleyCore
import ParleyStore

/// Friend requests, the friend list with remarks, and blocks. Input is checked here; who
/// may do what against what is stored is ``ContactRules``', inside the store's transaction.
struct ContactService: Sendable {
    let store: any ParleyStore
    let clock: WallClock
    let words: WordFilter
    /// How long a request stays pending (`--friend-request-ttl`).
    let requestTTLMs: Int64
    /// Told of what may push to users with no device connected.
    let pushes: PushDispatcher
    /// Counts each user's friend requests (`friend-request`).
    let limiter: RateLimiter

    /// Asks `request.userId` to become friends (or befriends at once, see
    /// ``ContactStore/requestFriend(from:to:message:at:expiresAt:)``).
    func sendRequest(_ request: SendFriendRequest, by identity: Identity) async throws -> FriendRequest {
        guard let userId = request.userId else {
            throw ParleyError(.missingField, "Give 'userId', the user to ask.")
        }
        let message = try TextRules.paragraph(
            request.message ?? "", field: "message", maxLength: ContactLimits.maxRequestMessageLength)
        try words.check(message, field: "message")
        try await limiter.take(.friendRequest, for: identity.userId)
        let now = clock.now()
        let sent = try await store.requestFriend(
            from: identity.userId, to: userId, message: message, at: now, expiresAt: now + requestTTLMs)
        if sent.status == .pending { pushes.enqueue(.friendRequest(from: identity.userId, to: userId)) }
        return sent
    }

    func answer(_ id: FriendRequestID, _ body: AnswerFriendRequest, by identity: Identity) async throws
        -> FriendRequest
    {
        guard let answer = body.answer else {
            throw ParleyError(.missingField, "Give 'answer': 'accept', 'reject' or 'ignore'.")
        }
        guard FriendRequestAnswer.known.contains(answer) else {
            throw ParleyError(.invalidField, "'answer' must be 'accept', 'reject' or 'ignore'.")
        }
        return try await store.answerFriendRequest(id, by: identity.userId, answer, at: clock.now())
    }

    func requests(of identity: Identity) async throws -> FriendRequestList {
        try await store.friendRequests(of: identity.userId, at: clock.now())
    }

    /// The caller's friends, or those in one of their friend groups.
    func contacts(of identity: Identity, in group: FriendGroupID?) async throws -> ContactList {
        ContactList(contacts: try await store.contacts(of: identity.userId, in: group))
    }

    /// Sets the caller's remark for a friend ("" removes it) and/or the friend groups they are in.
    func update(_ friend: UserID, _ update: UpdateContactRequest, by identity: Identity) async throws -> Contact {
        guard update.remark != nil || update.groups != nil else {
            throw ParleyError(.missingField, "Give 'remark', 'groups' or both.")
        }
        let remark = try update.remark.map { remark in
            let checked =
                remark.isEmpty
                ? ""
                : try TextRules.name(
                    remark, field: "remark", maxLength: ContactLimits.maxRemarkLength, code: .remarkInvalid)
            try words.check(checked, field: "remark")
            return checked
        }
        if let groups = update.groups, groups.count > ContactLimits.maxFriendGroups {
            throw ParleyError(.invalidField, "'groups' may name at most \(ContactLimits.maxFriendGroups) groups.")
        }
        return try await store.updateContact(
            of: identity.userId, friend, remark: remark, groups: update.groups, at: clock.now())
    }

    /// People the caller may know; `limit` 1 to ``ContactLimits/maxRecommendations``.
    func recommendations(for identity: Identity, limit: Int64?) async throws -> RecommendationList {
        let limit = limit ?? Int64(ContactLimits.defaultRecommendations)
        guard (1...Int64(ContactLimits.maxRecommendations)).contains(limit) else {
            throw ParleyError(.invalidField, "'limit' must be 1 to \(ContactLimits.maxRecommendations).")
        }
        return RecommendationList(
            recommendations: try await store.recommendations(for: identity.userId, limit: Int(limit), at: clock.now()))
    }

    func friendGroups(of identity: Identity) async throws -> FriendGroupList {
        FriendGroupList(groups: try await store.friendGroups(of: identity.userId))
    }

    func createFriendGroup(_ request: FriendGroupRequest, by identity: Identity) async throws -> FriendGroup {
        try await store.createFriendGroup(of: identity.userId, name: try groupName(request), at: clock.now())
    }

    func renameFriendGroup(_ id: FriendGroupID, _ request: FriendGroupRequest, by identity: Identity) async throws
        -> FriendGroup
    {
        try await store.renameFriendGroup(id, of: identity.userId, name: try groupName(request), at: clock.now())
    }

    func deleteFriendGroup(_ id: FriendGroupID, by identity: Identity) async throws {
        try await store.deleteFriendGroup(id, of: identity.userId, at: clock.now())
    }

    private func groupName(_ request: FriendGroupRequest) throws -> String {
        guard let name = request.name else { throw ParleyError(.missingField, "Give 'name'.") }
        let checked = try TextRules.name(name, field: "name", maxLength: ContactLimits.maxFriendGroupNameLength)
        try words.check(checked, field: "name")
        return checked
    }

    func remove(_ friend: UserID, by identity: Identity) async throws {
        try await store.removeContact(of: identity.userId, friend, at: clock.now())
    }

    func block(_ userId: UserID, by identity: Identity) async throws -> BlockedUser {
        try await store.block(userId, by: identity.userId, at: clock.now())
    }

    func unblock(_ userId: UserID, by identity: Identity) async throws {
        try await store.unblock(userId, by: identity.userId, at: clock.now())
    }

    func blocks(of identity: Identity) async throws -> BlockList {
        BlockList(blocked: try await store.blockedUsers(of: identity.userId))
    }
}
