import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func requestFriend(
        from requester: UserID, to userId: UserID, message: String, at now: Int64, expiresAt: Int64
    ) async throws -> FriendRequest {
        try await write { connection, notes in
            let existing = try await self.friendRequest(connection, from: requester, to: userId)
            let facts = ContactRules.RequestFacts(
                requester: requester, targetId: userId, target: try await self.userRecord(connection, userId),
                requesterBlockedTarget: try await self.hasBlocked(connection, requester, userId),
                targetBlockedRequester: try await self.hasBlocked(connection, userId, requester),
                friends: try await self.areFriends(connection, requester, userId),
                targetAskedRequester: try await self.friendRequest(connection, from: userId, to: requester)?
                    .isOpen(at: now) ?? false,
                requesterAskedTarget: existing?.isOpen(at: now) ?? false,
                requesterFriendCount: try await self.friendCount(connection, requester),
                targetFriendCount: try await self.friendCount(connection, userId),
                requesterOpenRequests: Int(
                    try await connection.scalar(
                        Int64.self,
                        """
                        SELECT count(*) FROM friend_requests
                        WHERE from_id = $1 AND status IN ('pending', 'ignored') AND expires_at > $2
                        """,
                        [.int(requester.rawValue), .int(now)], logger: self.logger) ?? 0))
            let decision = try ContactRules.decide(facts)
            let createdAt = existing.flatMap { $0.isOpen(at: now) ? $0.createdAt : nil } ?? now
            try await connection.rows(
                """
                INSERT INTO friend_requests (from_id, to_id, message, status, created_at, updated_at, expires_at)
                VALUES ($1, $2, $3, 'pending', $4, $5, $6)
                ON CONFLICT (from_id, to_id) DO UPDATE SET message = excluded.message, status = 'pending',
                    created_at = excluded.created_at, updated_at = excluded.updated_at, expires_at = excluded.expires_at
                """,
                [
                    .int(requester.rawValue), .int(userId.rawValue), .text(message), .int(createdAt), .int(now),
                    .int(expiresAt),
                ], logger: self.logger)
            let request = try await self.friendRequest(connection, from: requester, to: userId)!
            if decision == .befriend {
                try await self.befriend(connection, notes, requester, userId, at: now)
            } else {
                try await self.announce(connection, notes, request, at: now)
            }
            return try await self.view(
                connection, try await self.friendRequest(connection, from: requester, to: userId)!, for: requester,
                at: now)
        }
    }

    public func answerFriendRequest(
        _ id: FriendRequestID, by userId: UserID, _ answer: FriendRequestAnswer, at now: Int64
    ) async throws -> FriendRequest {
        try await write { connection, notes in
            let request = try await connection.rows(
                "SELECT * FROM friend_requests WHERE id = $1", [.int(id.rawValue)], logger: self.logger
            ).first.map(FriendRequestRecord.init(row:))
            let requester = request?.fromId ?? userId
            let changes = try ContactRules.checkAnswer(
                request, by: userId, answer, at: now, friends: try await self.areFriends(connection, userId, requester),
                blocked: (
                    requesterBlocked: try await self.hasBlocked(connection, userId, requester),
                    blockedBy: try await self.hasBlocked(connection, requester, userId)
                ),
                friendCounts: (
                    mine: try await self.friendCount(connection, userId),
                    theirs: try await self.friendCount(connection, requester)
                ))
            guard var request else { throw ParleyError(.friendRequestNotFound, "No such friend request to you.") }
            if !changes {
                return try await self.view(connection, request, for: userId, at: now)
            } else if answer == .accept {
                try await self.befriend(connection, notes, requester, userId, at: now)
            } else {
                // Ignoring is the recipient's own business: the sender's view does not move.
                request.status = answer == .reject ? .rejected : .ignored
                if answer == .reject { request.updatedAt = now }
                try await connection.rows(
                    "UPDATE friend_requests SET status = $1, updated_at = $2 WHERE id = $3",
                    [.text(request.status.rawValue), .int(request.updatedAt), .int(id.rawValue)], logger: self.logger)
                try await self.announce(connection, notes, request, at: now, toSender: answer == .reject)
            }
            return try await self.view(
                connection, try await self.friendRequest(connection, from: requester, to: userId)!, for: userId,
                at: now)
        }
    }

    public func friendRequests(of userId: UserID, at now: Int64) async throws -> FriendRequestList {
        try await read { connection in
            var incoming: [FriendRequestStatus: [FriendRequestRecord]] = [:]
            for status in [FriendRequestStatus.pending, .ignored] {
                incoming[status] = try await connection.rows(
                    """
                    SELECT * FROM friend_requests WHERE to_id = $1 AND status = $4 AND expires_at > $2
                    ORDER BY updated_at DESC, id DESC LIMIT $3
                    """,
                    [
                        .int(userId.rawValue), .int(now), .int(Int64(ContactLimits.maxListedIncoming)),
                        .text(status.rawValue),
                    ], logger: self.logger
                ).map(FriendRequestRecord.init(row:))
            }
            let outgoing = try await connection.rows(
                """
                SELECT * FROM friend_requests WHERE from_id = $1 AND status IN ('pending', 'ignored') AND expires_at > $2
                ORDER BY updated_at DESC, id DESC
                """,
                [.int(userId.rawValue), .int(now)], logger: self.logger
            ).map(FriendRequestRecord.init(row:))
            var list = FriendRequestList(incoming: [], outgoing: [], ignored: [])
            for request in incoming[.ignored] ?? [] {
                list.ignored.append(try await self.view(connection, request, for: userId, at: now))
            }
            for request in incoming[.pending] ?? [] {
                list.incoming.append(try await self.view(connection, request, for: userId, at: now))
            }
            for request in outgoing {
                list.outgoing.append(try await self.view(connection, request, for: userId, at: now))
            }
            return list
        }
    }

    public func contacts(of userId: UserID, in group: FriendGroupID?) async throws -> [Contact] {
        try await read { connection in
            let memberships = try await self.memberships(connection, of: userId)
            if let group, !(try await self.ownedGroups(connection, of: userId).contains(group)) {
                throw ParleyError(.friendGroupNotFound, "You have no friend group \(group).")
            }
            return try await connection.rows(
                """
                SELECT u.*, c.remark, c.created_at AS since FROM contacts c JOIN users u ON u.id = c.friend_id
                WHERE c.owner_id = $1 ORDER BY c.friend_id
                """,
                [.int(userId.rawValue)], logger: self.logger
            ).map { try Contact(row: $0, groups: memberships) }.filter { group.map($0.groups.contains) ?? true }
        }
    }

    public func updateContact(
        of owner: UserID, _ friend: UserID, remark: String?, groups: [FriendGroupID]?, at now: Int64
    ) async throws -> Contact {
        try await write { connection, notes in
            guard try await self.areFriends(connection, owner, friend) else {
                throw ParleyError(.contactNotFound, "User \(friend) is not your friend.")
            }
            if let remark {
                try await connection.rows(
                    "UPDATE contacts SET remark = $1 WHERE owner_id = $2 AND friend_id = $3",
                    [.text(remark), .int(owner.rawValue), .int(friend.rawValue)], logger: self.logger)
            }
            if let groups {
                let checked = try ContactRules.checkGroups(
                    groups, owned: try await self.ownedGroups(connection, of: owner))
                try await self.leaveGroups(connection, of: owner, friend)
                for group in checked {
                    try await connection.rows(
                        "INSERT INTO friend_group_members (group_id, friend_id) VALUES ($1, $2)",
                        [.int(group.rawValue), .int(friend.rawValue)], logger: self.logger)
                }
            }
            let contact = try await self.contact(connection, of: owner, friend)!
            try await self.announce(
                connection, notes, [Announcement(to: [owner], ContactUpdated(contact: contact).body)], at: now)
            return contact
        }
    }

    public func friendGroups(of userId: UserID) async throws -> [FriendGroup] {
        try await read { connection in
            try await connection.rows(
                "SELECT * FROM friend_groups WHERE owner_id = $1 ORDER BY id", [.int(userId.rawValue)],
                logger: self.logger
            ).map(FriendGroup.init(row:))
        }
    }

    public func createFriendGroup(of owner: UserID, name: String, at now: Int64) async throws -> FriendGroup {
        try await write { connection, notes in
            try ContactRules.checkFriendGroup(
                named: name, others: try await self.groupNames(connection, of: owner, except: nil), creating: true)
            let id = try await connection.scalar(
                Int64.self, "INSERT INTO friend_groups (owner_id, name, created_at) VALUES ($1, $2, $3) RETURNING id",
                [.int(owner.rawValue), .text(name), .int(now)], logger: self.logger)!
            let group = FriendGroup(id: FriendGroupID(id), name: name, createdAt: now)
            try await self.announce(
                connection, notes, [Announcement(to: [owner], FriendGroupUpdated(group: group).body)], at: now)
            return group
        }
    }

    public func renameFriendGroup(_ id: FriendGroupID, of owner: UserID, name: String, at now: Int64) async throws
        -> FriendGroup
    {
        try await write { connection, notes in
            guard
                var group = try await connection.rows(
                    "SELECT * FROM friend_groups WHERE id = $1 AND owner_id = $2",
                    [.int(id.rawValue), .int(owner.rawValue)], logger: self.logger
                ).first.map(FriendGroup.init(row:))
            else { throw ParleyError(.friendGroupNotFound, "You have no friend group \(id).") }
            try ContactRules.checkFriendGroup(
                named: name, others: try await self.groupNames(connection, of: owner, except: id), creating: false)
            group.name = name
            try await connection.rows(
                "UPDATE friend_groups SET name = $1 WHERE id = $2", [.text(name), .int(id.rawValue)],
                logger: self.logger)
            try await self.announce(
                connection, notes, [Announcement(to: [owner], FriendGroupUpdated(group: group).body)], at: now)
            return group
        }
    }

    public func deleteFriendGroup(_ id: FriendGroupID, of owner: UserID, at now: Int64) async throws {
        try await write { connection, notes in
            let deleted = try await connection.rows(
                "DELETE FROM friend_groups WHERE id = $1 AND owner_id = $2 RETURNING id",
                [.int(id.rawValue), .int(owner.rawValue)], logger: self.logger)
            guard !deleted.isEmpty else { throw ParleyError(.friendGroupNotFound, "You have no friend group \(id).") }
            try await self.announce(
                connection, notes, [Announcement(to: [owner], FriendGroupRemoved(groupId: id).body)], at: now)
        }
    }

    public func removeContact(of owner: UserID, _ friend: UserID, at now: Int64) async throws {
        try await write { connection, notes in
            guard try await self.unfriend(connection, notes, owner, friend, at: now) else {
                throw ParleyError(.contactNotFound, "User \(friend) is not your friend.")
            }
            if let direct = try await self.conversationID(connection, directKey: DirectKey.make(owner, friend)) {
                _ = try await self.applySettings(
                    connection, notes, UpdateSettingsRequest(hidden: true, clearUpToSeq: Int64.max), of: direct,
                    for: owner, at: now)
            }
        }
    }

    public func block(_ userId: UserID, by blocker: UserID, at now: Int64) async throws -> BlockedUser {
        try await write { connection, notes in
            guard userId != blocker else { throw ParleyError(.invalidField, "You cannot block yourself.") }
            guard let user = try await self.userRecord(connection, userId)?.user else {
                throw ParleyError(.userNotFound, "User \(userId) does not exist.")
            }
            if let since = try await connection.scalar(
                Int64.self, "SELECT created_at FROM blocks WHERE blocker_id = $1 AND blocked_id = $2",
                [.int(blocker.rawValue), .int(userId.rawValue)], logger: self.logger)
            {
                return BlockedUser(user: user, since: since)
            }
            let count =
                try await connection.scalar(
                    Int64.self, "SELECT count(*) FROM blocks WHERE blocker_id = $1", [.int(blocker.rawValue)],
                    logger: self.logger) ?? 0
            guard count < ContactLimits.maxBlocks else {
                throw ParleyError(
                    .tooManyBlocks, "You have blocked \(ContactLimits.maxBlocks) users, the most allowed.")
            }
            try await connection.rows(
                "INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES ($1, $2, $3)",
                [.int(blocker.rawValue), .int(userId.rawValue), .int(now)], logger: self.logger)
            _ = try await self.unfriend(connection, notes, blocker, userId, at: now)
            // Their request to the blocker leaves the blocker's inbox (they still see it pending);
            // the blocker's request to them lapses now.
            for (from, to) in [(userId, blocker), (blocker, userId)] {
                guard var request = try await self.friendRequest(connection, from: from, to: to),
                    request.isOpen(at: now)
                else { continue }
                if from == userId {
                    request.status = .ignored
                } else {
                    request.expiresAt = now
                    request.updatedAt = now
                }
                try await connection.rows(
                    "UPDATE friend_requests SET status = $1, expires_at = $2, updated_at = $3 WHERE id = $4",
                    [
                        .text(request.status.rawValue), .int(request.expiresAt), .int(request.updatedAt),
                        .int(request.id.rawValue),
                    ],
                    logger: self.logger)
                let view = try await self.view(connection, request, for: blocker, at: now)
                try await self.announce(
                    connection, notes, [Announcement(to: [blocker], FriendRequestUpdated(request: view).body)], at: now)
            }
            let blocked = BlockedUser(user: user, since: now)
            try await self.announce(
                connection, notes, [Announcement(to: [blocker], BlockAdded(blocked: blocked).body)], at: now)
            return blocked
        }
    }

    public func unblock(_ userId: UserID, by blocker: UserID, at now: Int64) async throws {
        try await write { connection, notes in
            guard try await self.userRecord(connection, userId) != nil else {
                throw ParleyError(.userNotFound, "User \(userId) does not exist.")
            }
            let removed = try await connection.rows(
                "DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2 RETURNING blocked_id",
                [.int(blocker.rawValue), .int(userId.rawValue)], logger: self.logger)
            if !removed.isEmpty {
                try await self.announce(
                    connection, notes, [Announcement(to: [blocker], BlockRemoved(userId: userId).body)], at: now)
            }
        }
    }

    public func blockedUsers(of userId: UserID) async throws -> [BlockedUser] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT u.*, b.created_at AS since FROM blocks b JOIN users u ON u.id = b.blocked_id
                WHERE b.blocker_id = $1 ORDER BY b.created_at DESC, b.blocked_id DESC
                """,
                [.int(userId.rawValue)], logger: self.logger
            ).map { BlockedUser(user: try UserRecord(row: $0).user, since: try $0.int("since")) }
        }
    }

    public func blocked(between user: UserID, and others: [UserID]) async throws -> Set<UserID> {
        try await read { connection in try await self.blocked(connection, between: user, and: others) }
    }

    /// ``blocked(between:and:)`` inside the current transaction.
    func blocked(_ connection: PostgresConnection, between user: UserID, and others: [UserID]) async throws
        -> Set<UserID>
    {
        // One statement whatever the count (the ids as one list), so it stays prepared.
        Set(
            try await connection.rows(
                """
                SELECT blocked_id AS other FROM blocks
                    WHERE blocker_id = $1 AND blocked_id = ANY(string_to_array($2, ',')::bigint[])
                UNION SELECT blocker_id FROM blocks
                    WHERE blocked_id = $1 AND blocker_id = ANY(string_to_array($2, ',')::bigint[])
                """,
                [.int(user.rawValue), .text(Self.idList(others))], logger: self.logger
            ).map { UserID(try $0.int("other")) })
    }

    /// Checks that `peer` exists and that `sender` may send them a direct message
    /// (``ContactRules/checkCanMessage(peerPolicy:friends:senderBlockedPeer:peerBlockedSender:peerDeleted:)``),
    /// in one statement.
    func checkCanMessage(_ connection: PostgresConnection, from sender: UserID, to peer: UserID) async throws {
        let row = try await connection.rows(
            "SELECT \(Self.messagePolicyColumns(sender: "$1")) FROM users p WHERE p.id = $2",
            [.int(sender.rawValue), .int(peer.rawValue)], logger: logger
        ).first
        try ConversationRules.requireExisting([peer], existing: row == nil ? [] : [peer])
        try row.map(Self.checkMessagePolicy(in:))
    }

    /// The columns ``checkMessagePolicy(in:)`` reads: what the peer, the `users` row `p`, lets
    /// `sender` (an SQL expression) send them.
    static func messagePolicyColumns(sender: String) -> String {
        """
        p.message_from, p.deleted_at IS NOT NULL AS peer_deleted,
            EXISTS (SELECT 1 FROM blocks WHERE blocker_id = \(sender) AND blocked_id = p.id) AS sender_blocked,
            EXISTS (SELECT 1 FROM blocks WHERE blocker_id = p.id AND blocked_id = \(sender)) AS peer_blocked,
            EXISTS (SELECT 1 FROM contacts WHERE owner_id = p.id AND friend_id = \(sender)) AS friends
        """
    }

    /// Applies ``ContactRules/checkCanMessage(peerPolicy:friends:senderBlockedPeer:peerBlockedSender:peerDeleted:)``
    /// to a row with ``messagePolicyColumns(sender:)``.
    static func checkMessagePolicy(in row: PostgresRandomAccessRow) throws {
        try ContactRules.checkCanMessage(
            peerPolicy: MessagePolicy(rawValue: try row.text("message_from")), friends: try row.bool("friends"),
            senderBlockedPeer: try row.bool("sender_blocked"), peerBlockedSender: try row.bool("peer_blocked"),
            peerDeleted: try row.bool("peer_deleted"))
    }

    /// Announces `contact.updated` with `user`'s new profile to everyone who has them as a friend.
    func announceProfile(_ connection: PostgresConnection, _ notes: Notifications, of user: User, at now: Int64)
        async throws
    {
        let groups = try await memberships(connection, fixing: "m.friend_id", keyedBy: "g.owner_id", user.id)
        let rows = try await connection.rows(
            "SELECT owner_id, remark, created_at FROM contacts WHERE friend_id = $1", [.int(user.id.rawValue)],
            logger: logger)
        try await announce(
            connection, notes,
            try rows.map {
                let owner = UserID(try $0.int("owner_id"))
                let contact = Contact(
                    user: user, remark: try $0.text("remark"), since: try $0.int("created_at"),
                    groups: groups[owner] ?? [])
                return Announcement(to: [owner], ContactUpdated(contact: contact).body)
            }, at: now)
    }

    /// Makes two users friends: contacts both ways, every open request between them accepted,
    /// their direct conversation opened if it was not, and the events of each.
    private func befriend(
        _ connection: PostgresConnection, _ notes: Notifications, _ one: UserID, _ other: UserID, at now: Int64
    ) async throws {
        for (owner, friend) in [(one, other), (other, one)] {
            try await connection.rows(
                "INSERT INTO contacts (owner_id, friend_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                [.int(owner.rawValue), .int(friend.rawValue), .int(now)], logger: logger)
            if var request = try await friendRequest(connection, from: owner, to: friend), request.isOpen(at: now) {
                request.status = .accepted
                request.updatedAt = now
                try await connection.rows(
                    "UPDATE friend_requests SET status = 'accepted', updated_at = $1 WHERE id = $2",
                    [.int(now), .int(request.id.rawValue)], logger: logger)
                try await announce(connection, notes, request, at: now)
            }
        }
        _ = try await directConversation(connection, notes, between: one, and: other, at: now)
        var announcements: [Announcement] = []
        for (owner, friend) in [(one, other), (other, one)] {
            let contact = try await self.contact(connection, of: owner, friend)!
            announcements.append(Announcement(to: [owner], ContactUpdated(contact: contact).body))
        }
        try await announce(connection, notes, announcements, at: now)
    }

    /// Deletes a friendship both ways (and each from the other's friend groups), with
    /// `contact.removed` to both; false if there was none.
    private func unfriend(
        _ connection: PostgresConnection, _ notes: Notifications, _ one: UserID, _ other: UserID, at now: Int64
    ) async throws -> Bool {
        try await leaveGroups(connection, of: one, other)
        try await leaveGroups(connection, of: other, one)
        let removed = try await connection.rows(
            """
            DELETE FROM contacts WHERE (owner_id = $1 AND friend_id = $2) OR (owner_id = $2 AND friend_id = $1)
            RETURNING owner_id
            """,
            [.int(one.rawValue), .int(other.rawValue)], logger: logger)
        guard !removed.isEmpty else { return false }
        try await announce(
            connection, notes,
            [
                Announcement(to: [one], ContactRemoved(userId: other).body),
                Announcement(to: [other], ContactRemoved(userId: one).body),
            ], at: now)
        return true
    }

    /// `friend_request.updated` to the recipient, and to the sender unless `toSender` is false.
    private func announce(
        _ connection: PostgresConnection, _ notes: Notifications, _ request: FriendRequestRecord, at now: Int64,
        toSender: Bool = true
    ) async throws {
        var announcements: [Announcement] = []
        for viewer in toSender ? [request.fromId, request.toId] : [request.toId] {
            let view = try await self.view(connection, request, for: viewer, at: now)
            announcements.append(Announcement(to: [viewer], FriendRequestUpdated(request: view).body))
        }
        try await announce(connection, notes, announcements, at: now)
    }

    private func view(
        _ connection: PostgresConnection, _ request: FriendRequestRecord, for viewer: UserID, at now: Int64
    ) async throws -> FriendRequest {
        guard let from = try await userRecord(connection, request.fromId),
            let to = try await userRecord(connection, request.toId)
        else { throw ParleyError(.userNotFound, "A user of friend request \(request.id) no longer exists.") }
        return request.view(from: from.user, to: to.user, for: viewer, at: now)
    }

    private func userRecord(_ connection: PostgresConnection, _ id: UserID) async throws -> UserRecord? {
        try await connection.rows("SELECT * FROM users WHERE id = $1", [.int(id.rawValue)], logger: logger).first
            .map(UserRecord.init(row:))
    }

    private func friendRequest(_ connection: PostgresConnection, from: UserID, to: UserID) async throws
        -> FriendRequestRecord?
    {
        try await connection.rows(
            "SELECT * FROM friend_requests WHERE from_id = $1 AND to_id = $2",
            [.int(from.rawValue), .int(to.rawValue)],
            logger: logger
        ).first.map(FriendRequestRecord.init(row:))
    }

    private func contact(_ connection: PostgresConnection, of owner: UserID, _ friend: UserID) async throws
        -> Contact?
    {
        let row = try await connection.rows(
            """
            SELECT u.*, c.remark, c.created_at AS since FROM contacts c JOIN users u ON u.id = c.friend_id
            WHERE c.owner_id = $1 AND c.friend_id = $2
            """,
            [.int(owner.rawValue), .int(friend.rawValue)], logger: logger
        ).first
        guard let row else { return nil }
        return try Contact(row: row, groups: try await memberships(connection, of: owner))
    }

    /// The friend groups of `owner` each of their friends is in, by friend.
    private func memberships(_ connection: PostgresConnection, of owner: UserID) async throws
        -> [UserID: [FriendGroupID]]
    {
        try await memberships(connection, fixing: "g.owner_id", keyedBy: "m.friend_id", owner)
    }

    /// Friend-group ids of the memberships whose `column` is `id`, by `key` (the other side).
    private func memberships(_ connection: PostgresConnection, fixing column: String, keyedBy key: String, _ id: UserID)
        async throws -> [UserID: [FriendGroupID]]
    {
        var groups: [UserID: [FriendGroupID]] = [:]
        for row in try await connection.rows(
            """
            SELECT \(key) AS user_id, m.group_id FROM friend_group_members m
            JOIN friend_groups g ON g.id = m.group_id WHERE \(column) = $1 ORDER BY m.group_id
            """,
            [.int(id.rawValue)], logger: logger)
        {
            groups[UserID(try row.int("user_id")), default: []].append(FriendGroupID(try row.int("group_id")))
        }
        return groups
    }

    private func ownedGroups(_ connection: PostgresConnection, of owner: UserID) async throws -> Set<FriendGroupID> {
        Set(
            try await connection.rows(
                "SELECT id FROM friend_groups WHERE owner_id = $1", [.int(owner.rawValue)], logger: logger
            ).map { FriendGroupID(try $0.int("id")) })
    }

    private func groupNames(_ connection: PostgresConnection, of owner: UserID, except id: FriendGroupID?)
        async throws -> [String]
    {
        try await connection.rows(
            "SELECT name FROM friend_groups WHERE owner_id = $1 AND id <> $2",
            [.int(owner.rawValue), .int(id?.rawValue ?? 0)], logger: logger
        ).map { try $0.text("name") }
    }

    /// Takes `friend` out of every friend group of `owner`.
    private func leaveGroups(_ connection: PostgresConnection, of owner: UserID, _ friend: UserID) async throws {
        try await connection.rows(
            """
            DELETE FROM friend_group_members
            WHERE friend_id = $1 AND group_id IN (SELECT id FROM friend_groups WHERE owner_id = $2)
            """,
            [.int(friend.rawValue), .int(owner.rawValue)], logger: logger)
    }

    private func hasBlocked(_ connection: PostgresConnection, _ blocker: UserID, _ blocked: UserID) async throws
        -> Bool
    {
        try await connection.scalar(
            Bool.self, "SELECT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = $1 AND blocked_id = $2)",
            [.int(blocker.rawValue), .int(blocked.rawValue)], logger: logger) ?? false
    }

    private func areFriends(_ connection: PostgresConnection, _ one: UserID, _ other: UserID) async throws -> Bool {
        try await connection.scalar(
            Bool.self, "SELECT EXISTS (SELECT 1 FROM contacts WHERE owner_id = $1 AND friend_id = $2)",
            [.int(one.rawValue), .int(other.rawValue)], logger: logger) ?? false
    }

    private func friendCount(_ connection: PostgresConnection, _ userId: UserID) async throws -> Int {
        Int(
            try await connection.scalar(
                Int64.self, "SELECT count(*) FROM contacts WHERE owner_id = $1", [.int(userId.rawValue)],
                logger: logger) ?? 0)
    }
}

extension FriendRequestRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: FriendRequestID(try row.int("id")), fromId: UserID(try row.int("from_id")),
            toId: UserID(try row.int("to_id")), message: try row.text("message"),
            status: FriendRequestStatus(rawValue: try row.text("status")), createdAt: try row.int("created_at"),
            updatedAt: try row.int("updated_at"), expiresAt: try row.int("expires_at"))
    }
}

extension Contact {
    /// Decodes a `users` row joined with its contact's `remark` and `since`; `groups` holds
    /// the owner's friend groups by friend.
    init(row: PostgresRandomAccessRow, groups: [UserID: [FriendGroupID]]) throws {
        let user = try UserRecord(row: row).user
        self.init(
            user: user, remark: try row.text("remark"), since: try row.int("since"), groups: groups[user.id] ?? [])
    }
}

extension FriendGroup {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: FriendGroupID(try row.int("id")), name: try row.text("name"), createdAt: try row.int("created_at"))
    }
}

extension PostgresStore {
    public func recommendations(for userId: UserID, limit: Int, at now: Int64) async throws -> [Recommendation] {
        try await read { connection in
            try await connection.rows(
                """
                WITH mutual AS (
                    SELECT theirs.friend_id AS user_id, count(*) AS n
                    FROM contacts mine JOIN contacts theirs ON theirs.owner_id = mine.friend_id
                    WHERE mine.owner_id = $1 AND theirs.friend_id <> $1 GROUP BY theirs.friend_id),
                shared AS (
                    SELECT other.user_id, count(*) AS n
                    FROM members me JOIN members other ON other.conversation_id = me.conversation_id
                    JOIN conversations c ON c.id = me.conversation_id
                    WHERE me.user_id = $1 AND other.user_id <> $1 AND c.kind = 'group' AND c.dissolved_at IS NULL
                    GROUP BY other.user_id),
                candidates AS (SELECT user_id FROM mutual UNION SELECT user_id FROM shared)
                SELECT u.*, coalesce(mutual.n, 0) AS mutual_friends, coalesce(shared.n, 0) AS shared_groups
                FROM candidates JOIN users u ON u.id = candidates.user_id
                LEFT JOIN mutual ON mutual.user_id = u.id LEFT JOIN shared ON shared.user_id = u.id
                WHERE u.add_me <> 'nobody' AND u.find_by_nickname = 'everyone'
                    AND NOT EXISTS (SELECT 1 FROM contacts WHERE owner_id = $1 AND friend_id = u.id)
                    AND NOT EXISTS (
                        SELECT 1 FROM blocks
                        WHERE (blocker_id = $1 AND blocked_id = u.id) OR (blocker_id = u.id AND blocked_id = $1))
                    AND NOT EXISTS (
                        SELECT 1 FROM friend_requests
                        WHERE from_id = $1 AND to_id = u.id
                            AND (status = 'rejected' OR (status IN ('pending', 'ignored') AND expires_at > $3)))
                ORDER BY mutual_friends DESC, shared_groups DESC, u.id
                LIMIT $2
                """,
                [.int(userId.rawValue), .int(Int64(limit)), .int(now)], logger: self.logger
            ).map {
                Recommendation(
                    user: try UserRecord(row: $0).user, mutualFriends: Int(try $0.int("mutual_friends")),
                    sharedGroups: Int(try $0.int("shared_groups")))
            }
        }
    }
}
