import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func openDirectConversation(between userId: UserID, and peerId: UserID, at now: Int64) async throws
        -> ConversationSummary
    {
        try await pool.write { db in
            let id = try self.directConversation(db, between: userId, and: peerId, at: now)
            return try Self.summary(db, id, for: userId)
        }
    }

    /// The id of the direct conversation between two users, created with its members and
    /// `conversation.added` events if it does not exist.
    func directConversation(_ db: Database, between userId: UserID, and peerId: UserID, at now: Int64) throws
        -> ConversationID
    {
        guard userId != peerId else {
            throw ParleyError(.invalidField, "A direct conversation needs another user.")
        }
        let key = DirectKey.make(userId, peerId)
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM conversations WHERE direct_key = ?", arguments: [key]) {
            return ConversationID(id)
        }
        guard try Self.fetchUser(db, id: peerId) != nil else {
            throw ParleyError(.userNotFound, "User \(peerId) does not exist.")
        }
        let version = try nextVersion(db)
        try db.execute(
            sql: """
                INSERT INTO conversations (kind, direct_key, member_count, version, created_at, last_activity_at)
                VALUES ('direct', ?, 2, ?, ?, ?)
                """,
            arguments: [key, version, now, now])
        let id = ConversationID(db.lastInsertedRowID)
        try insertMembers(db, [(userId, .member), (peerId, .member)], into: id, version: version, at: now)
        try announce(db, .conversationAdded, in: id, to: [userId, peerId], at: now)
        return id
    }

    public func createGroup(name: String, ownerId: UserID, memberIds: [UserID], at now: Int64) async throws
        -> ConversationSummary
    {
        try await pool.write { db in
            let others = try self.existingUsers(db, Set(memberIds).subtracting([ownerId]).sorted())
            guard others.count + 1 <= Limits.maxGroupMembers else {
                throw ParleyError.groupFull()
            }
            let version = try self.nextVersion(db)
            try db.execute(
                sql: """
                    INSERT INTO conversations (kind, name, member_count, version, created_at, last_activity_at)
                    VALUES ('group', ?, ?, ?, ?, ?)
                    """,
                arguments: [name, others.count + 1, version, now, now])
            let id = ConversationID(db.lastInsertedRowID)
            try self.insertMembers(
                db, [(ownerId, .owner)] + others.map { ($0, .member) }, into: id, version: version, at: now)
            try self.announce(db, .conversationAdded, in: id, to: [ownerId] + others, at: now)
            return try Self.summary(db, id, for: ownerId)
        }
    }

    public func addMembers(_ userIds: [UserID], to conversationId: ConversationID, by actorId: UserID, at now: Int64)
        async throws -> [UserID]
    {
        try await pool.write { db in
            let current = try Self.memberIDs(db, of: conversationId, requiring: actorId)
            guard
                try String.fetchOne(
                    db, sql: "SELECT kind FROM conversations WHERE id = ?", arguments: [conversationId.rawValue])
                    == "group"
            else {
                throw ParleyError(.forbidden, "Members can be added to groups only.")
            }
            let added = try self.existingUsers(db, Set(userIds).subtracting(current).sorted())
            guard !added.isEmpty else { return [] }
            guard current.count + added.count <= Limits.maxGroupMembers else {
                throw ParleyError.groupFull()
            }
            let version = try self.nextVersion(db)
            try db.execute(
                sql: "UPDATE conversations SET member_count = member_count + ?, version = ? WHERE id = ?",
                arguments: [added.count, version, conversationId.rawValue])
            try self.insertMembers(db, added.map { ($0, .member) }, into: conversationId, version: version, at: now)
            try self.announce(db, .conversationAdded, in: conversationId, to: added, at: now)
            try self.announce(db, .membersAdded, in: conversationId, to: current, userIds: added, at: now)
            return added
        }
    }

    public func conversation(_ id: ConversationID, for userId: UserID) async throws -> ConversationDetail {
        try await pool.read { db in
            let summary = try Self.summary(db, id, for: userId)
            let members = try Row.fetchAll(
                db, sql: "SELECT * FROM members WHERE conversation_id = ? ORDER BY joined_at, user_id",
                arguments: [id.rawValue]
            ).map(Member.init(row:))
            return ConversationDetail(conversation: summary, members: members)
        }
    }

    public func conversations(of userId: UserID, after cursor: ConversationListCursor?, limit: Int) async throws
        -> [ConversationSummary]
    {
        try await pool.read { db in
            try Self.summaries(
                db, for: userId, where: cursor == nil ? "TRUE" : "(c.last_activity_at, c.id) < (?, ?)",
                orderBy: "c.last_activity_at DESC, c.id DESC", limit: limit,
                arguments: StatementArguments(cursor.map { [$0.lastActivityAt, $0.conversationId.rawValue] } ?? []))
        }
    }

    // MARK: Helpers shared by the conversation, message and sync queries

    /// The members of a conversation, after checking that `userId` is one of them.
    static func memberIDs(_ db: Database, of conversationId: ConversationID, requiring userId: UserID) throws
        -> [UserID]
    {
        let members = try Int64.fetchAll(
            db.cachedStatement(sql: "SELECT user_id FROM members WHERE conversation_id = ?"),
            arguments: [conversationId.rawValue]
        ).map { UserID($0) }
        guard members.contains(userId) else { throw ParleyError.notAMember(of: conversationId) }
        return members
    }

    /// Summaries of `userId`'s conversations matching `condition` (over `c` and `m`).
    static func summaries(
        _ db: Database, for userId: UserID, where condition: String, orderBy order: String, limit: Int,
        arguments: StatementArguments
    ) throws -> [ConversationSummary] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT c.*, m.read_seq, MAX(c.version, m.version) AS change_version,
                    (SELECT COALESCE(MAX(o.read_seq), 0) FROM members o
                        WHERE o.conversation_id = c.id AND o.user_id != m.user_id) AS others_read_seq,
                    lm.id AS lm_id, lm.seq AS lm_seq, lm.sender_id AS lm_sender_id,
                    lm.client_msg_id AS lm_client_msg_id, lm.kind AS lm_kind, lm.content AS lm_content,
                    lm.sent_at AS lm_sent_at
                FROM members m
                JOIN conversations c ON c.id = m.conversation_id
                LEFT JOIN messages lm ON lm.conversation_id = c.id AND lm.seq = c.max_seq
                WHERE m.user_id = ? AND (\(condition))
                ORDER BY \(order)
                LIMIT ?
                """,
            arguments: [userId.rawValue] + arguments + [limit])
        return try rows.map { try ConversationSummary(row: $0, viewer: userId) }
    }

    static func summary(_ db: Database, _ id: ConversationID, for userId: UserID) throws -> ConversationSummary {
        guard
            let summary = try summaries(
                db, for: userId, where: "c.id = ?", orderBy: "c.id", limit: 1, arguments: [id.rawValue]
            ).first
        else {
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM conversations WHERE id = ?", arguments: [id.rawValue]) == true
            {
                throw ParleyError.notAMember(of: id)
            }
            throw ParleyError(.conversationNotFound, "Conversation \(id) does not exist.")
        }
        return summary
    }

    /// The given users that exist; throws `user_not_found` naming the first that does not.
    private func existingUsers(_ db: Database, _ ids: [UserID]) throws -> [UserID] {
        for id in ids where try Self.fetchUser(db, id: id) == nil {
            throw ParleyError(.userNotFound, "User \(id) does not exist.")
        }
        return ids
    }

    private func insertMembers(
        _ db: Database, _ members: [(UserID, MemberRole)], into id: ConversationID, version: Int64, at now: Int64
    ) throws {
        for (userId, role) in members {
            try db.execute(
                sql: """
                    INSERT INTO members (conversation_id, user_id, role, version, joined_at) VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [id.rawValue, userId.rawValue, role.rawValue, version, now])
        }
    }

    /// Appends one event of `type` about conversation `id` to each user's stream and publishes them.
    private func announce(
        _ db: Database, _ type: UserEventType, in id: ConversationID, to users: [UserID], userIds: [UserID]? = nil,
        at now: Int64
    ) throws {
        var events: [UserID: [UserEvent]] = [:]
        for user in users {
            events[user] = [
                try appendEvent(
                    db, to: user, UserEvent(seq: 0, type: type, conversationId: id, userIds: userIds, at: now))
            ]
        }
        publishAfterCommit(db, .events(events))
    }
}
