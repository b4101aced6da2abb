import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func requestFriend(
        from requester: UserID, to userId: UserID, message: String, at now: Int64, expiresAt: Int64
    ) async throws -> FriendRequest {
        try await write { db in
            let existing = try Self.friendRequest(db, from: requester, to: userId)
            let facts = ContactRules.RequestFacts(
                requester: requester, targetId: userId, target: try Self.fetchUser(db, id: userId),
                requesterBlockedTarget: try Self.hasBlocked(db, requester, userId),
                targetBlockedRequester: try Self.hasBlocked(db, userId, requester),
                friends: try Self.areFriends(db, requester, userId),
                targetAskedRequester: try Self.friendRequest(db, from: userId, to: requester)?.isOpen(at: now) ?? false,
                requesterAskedTarget: existing?.isOpen(at: now) ?? false,
                requesterFriendCount: try Self.friendCount(db, requester),
                targetFriendCount: try Self.friendCount(db, userId),
                requesterOpenRequests: try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM friend_requests
                        WHERE from_id = ? AND status IN ('pending', 'ignored') AND expires_at > ?
                        """,
                    arguments: [requester.rawValue, now]) ?? 0)
            let decision = try ContactRules.decide(facts)
            let createdAt = existing.flatMap { $0.isOpen(at: now) ? $0.createdAt : nil } ?? now
            try db.execute(
                sql: """
                    INSERT INTO friend_requests (from_id, to_id, message, status, created_at, updated_at, expires_at)
                    VALUES (?, ?, ?, 'pending', ?, ?, ?)
                    ON CONFLICT (from_id, to_id) DO UPDATE SET message = excluded.message, status = 'pending',
                        created_at = excluded.created_at, updated_at = excluded.updated_at,
                        expires_at = excluded.expires_at
                    """,
                arguments: [requester.rawValue, userId.rawValue, message, createdAt, now, expiresAt])
            if decision == .befriend {
                try self.befriend(db, requester, userId, at: now)
            } else {
                try self.announce(db, try Self.friendRequest(db, from: requester, to: userId)!, at: now)
            }
            return try Self.view(db, try Self.friendRequest(db, from: requester, to: userId)!, for: requester, at: now)
        }
    }

    public func answerFriendRequest(
        _ id: FriendRequestID, by userId: UserID, _ answer: FriendRequestAnswer, at now: Int64
    ) async throws -> FriendRequest {
        try await write { db in
            let request = try Row.fetchOne(
                db, sql: "SELECT * FROM friend_requests WHERE id = ?", arguments: [id.rawValue]
            ).map(FriendRequestRecord.init(row:))
            let requester = request?.fromId ?? userId
            let changes = try ContactRules.checkAnswer(
                request, by: userId, answer, at: now, friends: try Self.areFriends(db, userId, requester),
                blocked: (
                    requesterBlocked: try Self.hasBlocked(db, userId, requester),
                    blockedBy: try Self.hasBlocked(db, requester, userId)
                ),
                friendCounts: (mine: try Self.friendCount(db, userId), theirs: try Self.friendCount(db, requester)))
            guard var request else { throw ParleyError(.friendRequestNotFound, "No such friend request to you.") }
            if !changes {
                return try Self.view(db, request, for: userId, at: now)
            } else if answer == .accept {
                try self.befriend(db, requester, userId, at: now)
            } else {
                // Ignoring is the recipient's own business: the sender's view does not move.
                request.status = answer == .reject ? .rejected : .ignored
                if answer == .reject { request.updatedAt = now }
                try db.execute(
                    sql: "UPDATE friend_requests SET status = ?, updated_at = ? WHERE id = ?",
                    arguments: [request.status.rawValue, request.updatedAt, id.rawValue])
                try self.announce(db, request, at: now, toSender: answer == .reject)
            }
            return try Self.view(db, try Self.friendRequest(db, from: requester, to: userId)!, for: userId, at: now)
        }
    }

    public func friendRequests(of userId: UserID, at now: Int64) async throws -> FriendRequestList {
        try await pool.read { db in
            func incoming(_ status: FriendRequestStatus) throws -> [FriendRequestRecord] {
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM friend_requests WHERE to_id = ? AND status = ? AND expires_at > ?
                        ORDER BY updated_at DESC, id DESC LIMIT ?
                        """,
                    arguments: [userId.rawValue, status.rawValue, now, ContactLimits.maxListedIncoming]
                ).map(FriendRequestRecord.init(row:))
            }
            let outgoing = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM friend_requests
                    WHERE from_id = ? AND status IN ('pending', 'ignored') AND expires_at > ?
                    ORDER BY updated_at DESC, id DESC
                    """,
                arguments: [userId.rawValue, now]
            ).map(FriendRequestRecord.init(row:))
            return FriendRequestList(
                incoming: try incoming(.pending).map { try Self.view(db, $0, for: userId, at: now) },
                outgoing: try outgoing.map { try Self.view(db, $0, for: userId, at: now) },
                ignored: try incoming(.ignored).map { try Self.view(db, $0, for: userId, at: now) })
        }
    }

    public func contacts(of userId: UserID, in group: FriendGroupID?) async throws -> [Contact] {
        try await pool.read { db in
            let memberships = try Self.memberships(db, of: userId)
            if let group, !(try Self.ownedGroups(db, of: userId).contains(group)) {
                throw ParleyError(.friendGroupNotFound, "You have no friend group \(group).")
            }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT u.*, c.remark, c.created_at AS since FROM contacts c JOIN users u ON u.id = c.friend_id
                    WHERE c.owner_id = ? ORDER BY c.friend_id
                    """,
                arguments: [userId.rawValue]
            ).map { Contact(row: $0, groups: memberships) }.filter { group.map($0.groups.contains) ?? true }
        }
    }

    public func updateContact(
        of owner: UserID, _ friend: UserID, remark: String?, groups: [FriendGroupID]?, at now: Int64
    ) async throws -> Contact {
        try await write { db in
            guard try Self.areFriends(db, owner, friend) else {
                throw ParleyError(.contactNotFound, "User \(friend) is not your friend.")
            }
            if let remark {
                try db.execute(
                    sql: "UPDATE contacts SET remark = ? WHERE owner_id = ? AND friend_id = ?",
                    arguments: [remark, owner.rawValue, friend.rawValue])
            }
            if let groups {
                let checked = try ContactRules.checkGroups(groups, owned: try Self.ownedGroups(db, of: owner))
                try Self.leaveGroups(db, of: owner, friend)
                for group in checked {
                    try db.execute(
                        sql: "INSERT INTO friend_group_members (group_id, friend_id) VALUES (?, ?)",
                        arguments: [group.rawValue, friend.rawValue])
                }
            }
            let contact = try Self.contact(db, of: owner, friend)!
            try self.announce(db, [Announcement(to: [owner], ContactUpdated(contact: contact).body)], at: now)
            return contact
        }
    }

    public func friendGroups(of userId: UserID) async throws -> [FriendGroup] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM friend_groups WHERE owner_id = ? ORDER BY id", arguments: [userId.rawValue]
            ).map(FriendGroup.init(row:))
        }
    }

    public func createFriendGroup(of owner: UserID, name: String, at now: Int64) async throws -> FriendGroup {
        try await write { db in
            try ContactRules.checkFriendGroup(
                named: name, others: try Self.groupNames(db, of: owner, except: nil), creating: true)
            try db.execute(
                sql: "INSERT INTO friend_groups (owner_id, name, created_at) VALUES (?, ?, ?)",
                arguments: [owner.rawValue, name, now])
            let group = FriendGroup(id: FriendGroupID(db.lastInsertedRowID), name: name, createdAt: now)
            try self.announce(db, [Announcement(to: [owner], FriendGroupUpdated(group: group).body)], at: now)
            return group
        }
    }

    public func renameFriendGroup(_ id: FriendGroupID, of owner: UserID, name: String, at now: Int64) async throws
        -> FriendGroup
    {
        try await write { db in
            guard
                var group = try Row.fetchOne(
                    db, sql: "SELECT * FROM friend_groups WHERE id = ? AND owner_id = ?",
                    arguments: [id.rawValue, owner.rawValue]
                ).map(FriendGroup.init(row:))
            else { throw ParleyError(.friendGroupNotFound, "You have no friend group \(id).") }
            try ContactRules.checkFriendGroup(
                named: name, others: try Self.groupNames(db, of: owner, except: id), creating: false)
            group.name = name
            try db.execute(sql: "UPDATE friend_groups SET name = ? WHERE id = ?", arguments: [name, id.rawValue])
            try self.announce(db, [Announcement(to: [owner], FriendGroupUpdated(group: group).body)], at: now)
            return group
        }
    }

    public func deleteFriendGroup(_ id: FriendGroupID, of owner: UserID, at now: Int64) async throws {
        try await write { db in
            try db.execute(
                sql:
                    "DELETE FROM friend_group_members WHERE group_id = (SELECT id FROM friend_groups WHERE id = ? AND owner_id = ?)",
                arguments: [id.rawValue, owner.rawValue])
            try db.execute(
                sql: "DELETE FROM friend_groups WHERE id = ? AND owner_id = ?",
                arguments: [id.rawValue, owner.rawValue])
            guard db.changesCount > 0 else {
                throw ParleyError(.friendGroupNotFound, "You have no friend group \(id).")
            }
            try self.announce(db, [Announcement(to: [owner], FriendGroupRemoved(groupId: id).body)], at: now)
        }
    }

    public func removeContact(of owner: UserID, _ friend: UserID, at now: Int64) async throws {
        try await write { db in
            guard try self.unfriend(db, owner, friend, at: now) else {
                throw ParleyError(.contactNotFound, "User \(friend) is not your friend.")
            }
            if let direct = try Self.conversationID(db, directKey: DirectKey.make(owner, friend)) {
                _ = try self.applySettings(
                    db, UpdateSettingsRequest(hidden: true, clearUpToSeq: Int64.max), of: direct, for: owner, at: now)
            }
        }
    }

    public func block(_ userId: UserID, by blocker: UserID, at now: Int64) async throws -> BlockedUser {
        try await write { db in
            guard userId != blocker else { throw ParleyError(.invalidField, "You cannot block yourself.") }
            guard let user = try Self.fetchUser(db, id: userId)?.user else {
                throw ParleyError(.userNotFound, "User \(userId) does not exist.")
            }
            if let since = try Int64.fetchOne(
                db, sql: "SELECT created_at FROM blocks WHERE blocker_id = ? AND blocked_id = ?",
                arguments: [blocker.rawValue, userId.rawValue])
            {
                return BlockedUser(user: user, since: since)
            }
            let count =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM blocks WHERE blocker_id = ?", arguments: [blocker.rawValue]) ?? 0
            guard count < ContactLimits.maxBlocks else {
                throw ParleyError(
                    .tooManyBlocks, "You have blocked \(ContactLimits.maxBlocks) users, the most allowed.")
            }
            try db.execute(
                sql: "INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (?, ?, ?)",
                arguments: [blocker.rawValue, userId.rawValue, now])
            _ = try self.unfriend(db, blocker, userId, at: now)
            // Their request to the blocker leaves the blocker's inbox (they still see it pending);
            // the blocker's request to them lapses now.
            for (from, to) in [(userId, blocker), (blocker, userId)] {
                guard var request = try Self.friendRequest(db, from: from, to: to), request.isOpen(at: now) else {
                    continue
                }
                if from == userId {
                    request.status = .ignored
                } else {
                    request.expiresAt = now
                    request.updatedAt = now
                }
                try db.execute(
                    sql: "UPDATE friend_requests SET status = ?, expires_at = ?, updated_at = ? WHERE id = ?",
                    arguments: [request.status.rawValue, request.expiresAt, request.updatedAt, request.id.rawValue])
                try self.announce(
                    db,
                    [
                        Announcement(
                            to: [blocker],
                            FriendRequestUpdated(request: try Self.view(db, request, for: blocker, at: now)).body)
                    ],
                    at: now)
            }
            let blocked = BlockedUser(user: user, since: now)
            try self.announce(db, [Announcement(to: [blocker], BlockAdded(blocked: blocked).body)], at: now)
            return blocked
        }
    }

    public func unblock(_ userId: UserID, by blocker: UserID, at now: Int64) async throws {
        try await write { db in
            guard try Self.fetchUser(db, id: userId) != nil else {
                throw ParleyError(.userNotFound, "User \(userId) does not exist.")
            }
            try db.execute(
                sql: "DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?",
                arguments: [blocker.rawValue, userId.rawValue])
            if db.changesCount > 0 {
                try self.announce(db, [Announcement(to: [blocker], BlockRemoved(userId: userId).body)], at: now)
            }
        }
    }

    public func blockedUsers(of userId: UserID) async throws -> [BlockedUser] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.*, b.created_at AS since FROM blocks b JOIN users u ON u.id = b.blocked_id
                    WHERE b.blocker_id = ? ORDER BY b.created_at DESC, b.blocked_id DESC
                    """,
                arguments: [userId.rawValue]
            ).map { BlockedUser(user: UserRecord(row: $0).user, since: $0["since"]) }
        }
    }

    public func blocked(between user: UserID, and others: [UserID]) async throws -> Set<UserID> {
        try await pool.read { db in try Self.blocked(db, between: user, and: others) }
    }

    /// ``blocked(between:and:)`` inside the current transaction.
    static func blocked(_ db: Database, between user: UserID, and others: [UserID]) throws -> Set<UserID> {
        // One statement whatever the count (the ids as a JSON array), so it stays prepared.
        let query = try db.cachedStatement(
            sql: """
                SELECT blocked_id FROM blocks WHERE blocker_id = ?1 AND blocked_id IN (SELECT value FROM json_each(?2))
                UNION SELECT blocker_id FROM blocks WHERE blocked_id = ?1 AND blocker_id IN (SELECT value FROM json_each(?2))
                """)
        let ids = "[" + others.map { String($0.rawValue) }.joined(separator: ",") + "]"
        return Set(try Int64.fetchAll(query, arguments: [user.rawValue, ids]).map { UserID($0) })
    }

    /// Checks that `sender` may send `peer` a direct message (``ContactRules/checkCanMessage(peerPolicy:friends:senderBlockedPeer:peerBlockedSender:peerDeleted:)``).
    func checkCanMessage(_ db: Database, from sender: UserID, to peer: UserID) throws {
        _ = try db.first(
            """
            SELECT u.message_from, u.deleted_at IS NOT NULL AS deleted,
                EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ?1 AND blocked_id = ?2) AS sender_blocked,
                EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ?2 AND blocked_id = ?1) AS peer_blocked,
                EXISTS (SELECT 1 FROM contacts WHERE owner_id = ?2 AND friend_id = ?1) AS friends
            FROM users u WHERE u.id = ?2
            """, [sender.rawValue, peer.rawValue]
        ) { columns in
            try ContactRules.checkCanMessage(
                peerPolicy: MessagePolicy(rawValue: try columns[0]), friends: try columns[4],
                senderBlockedPeer: try columns[2], peerBlockedSender: try columns[3], peerDeleted: try columns[1])
        }
    }

    /// Announces `contact.updated` with `user`'s new profile to everyone who has them as a friend.
    func announceProfile(_ db: Database, of user: User, at now: Int64) throws {
        let groups = try Self.memberships(db, ofFriend: user.id)
        let rows = try Row.fetchAll(
            db, sql: "SELECT owner_id, remark, created_at FROM contacts WHERE friend_id = ?",
            arguments: [user.id.rawValue])
        try announce(
            db,
            rows.map {
                let owner = UserID($0["owner_id"])
                let contact = Contact(
                    user: user, remark: $0["remark"], since: $0["created_at"], groups: groups[owner] ?? [])
                return Announcement(to: [owner], ContactUpdated(contact: contact).body)
            }, at: now)
    }

    /// Makes two users friends: contacts both ways, every open request between them accepted,
    /// their direct conversation opened if it was not, and the events of each.
    private func befriend(_ db: Database, _ one: UserID, _ other: UserID, at now: Int64) throws {
        for (owner, friend) in [(one, other), (other, one)] {
            try db.execute(
                sql: "INSERT INTO contacts (owner_id, friend_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                arguments: [owner.rawValue, friend.rawValue, now])
            if var request = try Self.friendRequest(db, from: owner, to: friend), request.isOpen(at: now) {
                request.status = .accepted
                request.updatedAt = now
                try db.execute(
                    sql: "UPDATE friend_requests SET status = 'accepted', updated_at = ? WHERE id = ?",
                    arguments: [now, request.id.rawValue])
                try announce(db, request, at: now)
            }
        }
        _ = try directConversation(db, between: one, and: other, at: now)
        try announce(
            db,
            try [(one, other), (other, one)].map { owner, friend in
                Announcement(to: [owner], ContactUpdated(contact: try Self.contact(db, of: owner, friend)!).body)
            }, at: now)
    }

    /// Deletes a friendship both ways (and each from the other's friend groups), with
    /// `contact.removed` to both; false if there was none.
    private func unfriend(_ db: Database, _ one: UserID, _ other: UserID, at now: Int64) throws -> Bool {
        try Self.leaveGroups(db, of: one, other)
        try Self.leaveGroups(db, of: other, one)
        try db.execute(
            sql: "DELETE FROM contacts WHERE (owner_id = ? AND friend_id = ?) OR (owner_id = ? AND friend_id = ?)",
            arguments: [one.rawValue, other.rawValue, other.rawValue, one.rawValue])
        guard db.changesCount > 0 else { return false }
        try announce(
            db,
            [
                Announcement(to: [one], ContactRemoved(userId: other).body),
                Announcement(to: [other], ContactRemoved(userId: one).body),
            ], at: now)
        return true
    }

    /// `friend_request.updated` to the recipient, and to the sender unless `toSender` is false.
    private func announce(_ db: Database, _ request: FriendRequestRecord, at now: Int64, toSender: Bool = true)
        throws
    {
        let viewers = toSender ? [request.fromId, request.toId] : [request.toId]
        try announce(
            db,
            try viewers.map {
                Announcement(to: [$0], FriendRequestUpdated(request: try Self.view(db, request, for: $0, at: now)).body)
            }, at: now)
    }

    private static func view(_ db: Database, _ request: FriendRequestRecord, for viewer: UserID, at now: Int64) throws
        -> FriendRequest
    {
        guard let from = try fetchUser(db, id: request.fromId), let to = try fetchUser(db, id: request.toId) else {
            throw ParleyError(.userNotFound, "A user of friend request \(request.id) no longer exists.")
        }
        return request.view(from: from.user, to: to.user, for: viewer, at: now)
    }

    private static func friendRequest(_ db: Database, from: UserID, to: UserID) throws -> FriendRequestRecord? {
        try Row.fetchOne(
            db, sql: "SELECT * FROM friend_requests WHERE from_id = ? AND to_id = ?",
            arguments: [from.rawValue, to.rawValue]
        ).map(FriendRequestRecord.init(row:))
    }

    private static func contact(_ db: Database, of owner: UserID, _ friend: UserID) throws -> Contact? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT u.*, c.remark, c.created_at AS since FROM contacts c JOIN users u ON u.id = c.friend_id
                WHERE c.owner_id = ? AND c.friend_id = ?
                """,
            arguments: [owner.rawValue, friend.rawValue]
        ).map { Contact(row: $0, groups: try memberships(db, of: owner)) }
    }

    /// The friend groups of `owner` each of their friends is in, by friend.
    private static func memberships(_ db: Database, of owner: UserID) throws -> [UserID: [FriendGroupID]] {
        try memberships(db, fixing: "g.owner_id", keyedBy: "m.friend_id", owner)
    }

    /// The friend groups `friend` is in, by the owner of each.
    private static func memberships(_ db: Database, ofFriend friend: UserID) throws -> [UserID: [FriendGroupID]] {
        try memberships(db, fixing: "m.friend_id", keyedBy: "g.owner_id", friend)
    }

    /// Friend-group ids of the memberships whose `column` is `id`, by `key` (the other side).
    private static func memberships(_ db: Database, fixing column: String, keyedBy key: String, _ id: UserID) throws
        -> [UserID: [FriendGroupID]]
    {
        var groups: [UserID: [FriendGroupID]] = [:]
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT \(key) AS user_id, m.group_id FROM friend_group_members m
                JOIN friend_groups g ON g.id = m.group_id WHERE \(column) = ? ORDER BY m.group_id
                """,
            arguments: [id.rawValue])
        {
            groups[UserID(row["user_id"]), default: []].append(FriendGroupID(row["group_id"]))
        }
        return groups
    }

    private static func ownedGroups(_ db: Database, of owner: UserID) throws -> Set<FriendGroupID> {
        Set(
            try Int64.fetchAll(db, sql: "SELECT id FROM friend_groups WHERE owner_id = ?", arguments: [owner.rawValue])
                .map { FriendGroupID($0) })
    }

    private static func groupNames(_ db: Database, of owner: UserID, except id: FriendGroupID?) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT name FROM friend_groups WHERE owner_id = ? AND id <> ?",
            arguments: [owner.rawValue, id?.rawValue ?? 0])
    }

    /// Takes `friend` out of every friend group of `owner`.
    private static func leaveGroups(_ db: Database, of owner: UserID, _ friend: UserID) throws {
        try db.execute(
            sql: """
                DELETE FROM friend_group_members
                WHERE friend_id = ? AND group_id IN (SELECT id FROM friend_groups WHERE owner_id = ?)
                """,
            arguments: [friend.rawValue, owner.rawValue])
    }

    private static func hasBlocked(_ db: Database, _ blocker: UserID, _ blocked: UserID) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?)",
            arguments: [blocker.rawValue, blocked.rawValue]) ?? false
    }

    private static func areFriends(_ db: Database, _ one: UserID, _ other: UserID) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM contacts WHERE owner_id = ? AND friend_id = ?)",
            arguments: [one.rawValue, other.rawValue]) ?? false
    }

    private static func friendCount(_ db: Database, _ userId: UserID) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM contacts WHERE owner_id = ?", arguments: [userId.rawValue])
            ?? 0
    }
}

extension FriendRequestRecord {
    init(row: Row) {
        self.init(
            id: FriendRequestID(row["id"]), fromId: UserID(row["from_id"]), toId: UserID(row["to_id"]),
            message: row["message"], status: FriendRequestStatus(rawValue: row["status"]),
            createdAt: row["created_at"], updatedAt: row["updated_at"], expiresAt: row["expires_at"])
    }
}

extension Contact {
    /// Decodes a `users` row joined with its contact's `remark` and `since`; `groups` holds
    /// the owner's friend groups by friend.
    init(row: Row, groups: [UserID: [FriendGroupID]]) {
        let user = UserRecord(row: row).user
        self.init(user: user, remark: row["remark"], since: row["since"], groups: groups[user.id] ?? [])
    }
}

extension FriendGroup {
    init(row: Row) {
        self.init(id: FriendGroupID(row["id"]), name: row["name"], createdAt: row["created_at"])
    }
}

extension SQLiteStore {
    public func recommendations(for userId: UserID, limit: Int, at now: Int64) async throws -> [Recommendation] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    WITH mutual AS (
                        SELECT theirs.friend_id AS user_id, count(*) AS n
                        FROM contacts mine JOIN contacts theirs ON theirs.owner_id = mine.friend_id
                        WHERE mine.owner_id = ?1 AND theirs.friend_id <> ?1 GROUP BY theirs.friend_id),
                    shared AS (
                        SELECT other.user_id, count(*) AS n
                        FROM members me JOIN members other ON other.conversation_id = me.conversation_id
                        JOIN conversations c ON c.id = me.conversation_id
                        WHERE me.user_id = ?1 AND other.user_id <> ?1 AND c.kind = 'group' AND c.dissolved_at IS NULL
                        GROUP BY other.user_id),
                    candidates AS (SELECT user_id FROM mutual UNION SELECT user_id FROM shared)
                    SELECT u.*, coalesce(mutual.n, 0) AS mutual_friends, coalesce(shared.n, 0) AS shared_groups
                    FROM candidates JOIN users u ON u.id = candidates.user_id
                    LEFT JOIN mutual ON mutual.user_id = u.id LEFT JOIN shared ON shared.user_id = u.id
                    WHERE u.add_me <> 'nobody' AND u.find_by_nickname = 'everyone'
                        AND NOT EXISTS (SELECT 1 FROM contacts WHERE owner_id = ?1 AND friend_id = u.id)
                        AND NOT EXISTS (
                            SELECT 1 FROM blocks
                            WHERE (blocker_id = ?1 AND blocked_id = u.id) OR (blocker_id = u.id AND blocked_id = ?1))
                        AND NOT EXISTS (
                            SELECT 1 FROM friend_requests
                            WHERE from_id = ?1 AND to_id = u.id
                                AND (status = 'rejected' OR (status IN ('pending', 'ignored') AND expires_at > ?3)))
                    ORDER BY mutual_friends DESC, shared_groups DESC, u.id
                    LIMIT ?2
                    """,
                arguments: [userId.rawValue, limit, now]
            ).map {
                Recommendation(
                    user: UserRecord(row: $0).user, mutualFriends: $0["mutual_friends"],
                    sharedGroups: $0["shared_groups"])
            }
        }
    }
}
