import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func openDirectConversation(between userId: UserID, and peerId: UserID, at now: Int64) async throws
        -> ConversationSummary
    {
        try await write { connection, notes in
            let id = try await self.directConversation(connection, notes, between: userId, and: peerId, at: now)
            return try await self.summary(connection, id, for: userId)
        }
    }

    func directConversation(
        _ connection: PostgresConnection, _ notes: Notifications, between userId: UserID, and peerId: UserID,
        at now: Int64
    ) async throws -> ConversationID {
        guard userId != peerId else { throw ParleyError(.invalidField, "A direct conversation needs another user.") }
        let key = DirectKey.make(userId, peerId)
        if let id = try await connection.scalar(
            Int64.self, "SELECT id FROM conversations WHERE direct_key = $1", [.text(key)], logger: logger)
        {
            return ConversationID(id)
        }
        guard
            try await connection.scalar(
                Int64.self, "SELECT id FROM users WHERE id = $1", [.int(peerId.rawValue)], logger: logger) != nil
        else { throw ParleyError(.userNotFound, "User \(peerId) does not exist.") }
        let version = try await nextVersion(connection)
        let id = ConversationID(
            try await connection.scalar(
                Int64.self,
                """
                INSERT INTO conversations (kind, direct_key, member_count, version, created_at, last_activity_at)
                VALUES ('direct', $1, 2, $2, $3, $3) RETURNING id
                """,
                [.text(key), .int(version), .int(now)], logger: logger)!)
        try await insertMembers(
            connection, [(userId, .member), (peerId, .member)], into: id, version: version, at: now)
        try await announce(connection, notes, .conversationAdded, in: id, to: [userId, peerId], at: now)
        return id
    }

    public func createGroup(name: String, ownerId: UserID, memberIds: [UserID], at now: Int64) async throws
        -> ConversationSummary
    {
        try await write { connection, notes in
            let others = try await self.existingUsers(connection, Set(memberIds).subtracting([ownerId]).sorted())
            guard others.count + 1 <= Limits.maxGroupMembers else {
                throw ParleyError.groupFull()
            }
            let version = try await self.nextVersion(connection)
            let id = ConversationID(
                try await connection.scalar(
                    Int64.self,
                    """
                    INSERT INTO conversations (kind, name, member_count, version, created_at, last_activity_at)
                    VALUES ('group', $1, $2, $3, $4, $4) RETURNING id
                    """,
                    [.text(name), .int(Int64(others.count + 1)), .int(version), .int(now)], logger: self.logger)!)
            try await self.insertMembers(
                connection, [(ownerId, .owner)] + others.map { ($0, .member) }, into: id, version: version, at: now)
            try await self.announce(connection, notes, .conversationAdded, in: id, to: [ownerId] + others, at: now)
            return try await self.summary(connection, id, for: ownerId)
        }
    }

    public func addMembers(_ userIds: [UserID], to conversationId: ConversationID, by actorId: UserID, at now: Int64)
        async throws -> [UserID]
    {
        try await write { connection, notes in
            let current = try await self.memberIDs(connection, of: conversationId, requiring: actorId)
            guard
                try await connection.scalar(
                    String.self, "SELECT kind FROM conversations WHERE id = $1", [.int(conversationId.rawValue)],
                    logger: self.logger)
                    == "group"
            else { throw ParleyError(.forbidden, "Members can be added to groups only.") }
            let added = try await self.existingUsers(connection, Set(userIds).subtracting(current).sorted())
            guard !added.isEmpty else { return [] }
            guard current.count + added.count <= Limits.maxGroupMembers else {
                throw ParleyError.groupFull()
            }
            let version = try await self.nextVersion(connection)
            try await connection.rows(
                "UPDATE conversations SET member_count = member_count + $1, version = $2 WHERE id = $3",
                [.int(Int64(added.count)), .int(version), .int(conversationId.rawValue)], logger: self.logger)
            try await self.insertMembers(
                connection, added.map { ($0, .member) }, into: conversationId, version: version, at: now)
            try await self.announce(connection, notes, .conversationAdded, in: conversationId, to: added, at: now)
            try await self.announce(
                connection, notes, .membersAdded, in: conversationId, to: current, userIds: added, at: now)
            return added
        }
    }

    public func conversation(_ id: ConversationID, for userId: UserID) async throws -> ConversationDetail {
        try await read { connection in
            let summary = try await self.summary(connection, id, for: userId)
            let members = try await connection.rows(
                "SELECT * FROM members WHERE conversation_id = $1 ORDER BY joined_at, user_id", [.int(id.rawValue)],
                logger: self.logger
            ).map { row in
                Member(
                    userId: UserID(try row.int("user_id")), role: MemberRole(rawValue: try row.text("role")) ?? .member,
                    readSeq: try row.int("read_seq"), joinedAt: try row.int("joined_at"))
            }
            return ConversationDetail(conversation: summary, members: members)
        }
    }

    public func conversations(of userId: UserID, after cursor: ConversationListCursor?, limit: Int) async throws
        -> [ConversationSummary]
    {
        try await read { connection in
            try await self.summaries(
                connection, for: userId, where: cursor == nil ? "TRUE" : "(c.last_activity_at, c.id) < ($2, $3)",
                orderBy: "c.last_activity_at DESC, c.id DESC", limit: Int64(limit),
                cursor.map { [.int($0.lastActivityAt), .int($0.conversationId.rawValue)] } ?? [])
        }
    }

    // MARK: Shared helpers

    func memberIDs(_ connection: PostgresConnection, of conversationId: ConversationID, requiring userId: UserID)
        async throws -> [UserID]
    {
        let members = try await memberList(connection, conversationId)
        guard members.contains(userId) else { throw ParleyError.notAMember(of: conversationId) }
        return members
    }

    /// Summaries of `userId`'s conversations matching `condition` (over `c` and `m`); extra
    /// parameters start at `$2`.
    func summaries(
        _ connection: PostgresConnection, for userId: UserID, where condition: String, orderBy order: String,
        limit: Int64,
        _ values: [SQLValue]
    ) async throws -> [ConversationSummary] {
        try await connection.rows(
            """
            SELECT c.*, m.read_seq, GREATEST(c.version, m.version) AS change_version,
                (SELECT COALESCE(MAX(o.read_seq), 0) FROM members o
                    WHERE o.conversation_id = c.id AND o.user_id <> m.user_id) AS others_read_seq,
                lm.id AS lm_id, lm.seq AS lm_seq, lm.sender_id AS lm_sender_id, lm.client_msg_id AS lm_client_msg_id,
                lm.kind AS lm_kind, lm.content AS lm_content, lm.sent_at AS lm_sent_at
            FROM members m
            JOIN conversations c ON c.id = m.conversation_id
            LEFT JOIN messages lm ON lm.conversation_id = c.id AND lm.seq = c.max_seq
            WHERE m.user_id = $1 AND (\(condition))
            ORDER BY \(order)
            LIMIT \(limit)
            """,
            [.int(userId.rawValue)] + values, logger: logger
        ).map { try ConversationSummary(row: $0, viewer: userId) }
    }

    func summary(_ connection: PostgresConnection, _ id: ConversationID, for userId: UserID) async throws
        -> ConversationSummary
    {
        if let summary = try await summaries(
            connection, for: userId, where: "c.id = $2", orderBy: "c.id", limit: 1, [.int(id.rawValue)]
        ).first {
            return summary
        }
        if try await connection.scalar(
            Int64.self, "SELECT id FROM conversations WHERE id = $1", [.int(id.rawValue)], logger: logger) != nil
        {
            throw ParleyError.notAMember(of: id)
        }
        throw ParleyError(.conversationNotFound, "Conversation \(id) does not exist.")
    }

    private func existingUsers(_ connection: PostgresConnection, _ ids: [UserID]) async throws -> [UserID] {
        for id in ids
        where try await connection.scalar(
            Int64.self, "SELECT id FROM users WHERE id = $1", [.int(id.rawValue)], logger: logger) == nil
        {
            throw ParleyError(.userNotFound, "User \(id) does not exist.")
        }
        return ids
    }

    private func insertMembers(
        _ connection: PostgresConnection, _ members: [(UserID, MemberRole)], into id: ConversationID, version: Int64,
        at now: Int64
    ) async throws {
        for (userId, role) in members {
            try await connection.rows(
                "INSERT INTO members (conversation_id, user_id, role, version, joined_at) VALUES ($1, $2, $3, $4, $5)",
                [.int(id.rawValue), .int(userId.rawValue), .text(role.rawValue), .int(version), .int(now)],
                logger: logger)
        }
    }

    /// Appends one event about conversation `id` to each user's stream and notes them for NOTIFY.
    private func announce(
        _ connection: PostgresConnection, _ notes: Notifications, _ type: UserEventType, in id: ConversationID,
        to users: [UserID],
        userIds: [UserID]? = nil, at now: Int64
    ) async throws {
        var pairs: [[Int64]] = []
        for user in users {
            let event = try await appendEvent(
                connection, to: user, UserEvent(seq: 0, type: type, conversationId: id, userIds: userIds, at: now))
            pairs.append([user.rawValue, event.seq])
        }
        for chunk in stride(from: 0, to: pairs.count, by: 200) {
            notes.add(ChangeNote(events: Array(pairs[chunk..<min(chunk + 200, pairs.count)])))
        }
    }
}

extension ConversationSummary {
    init(row: PostgresRandomAccessRow, viewer: UserID) throws {
        let id = ConversationID(try row.int("id"))
        let peer = try row.optionalText("direct_key").flatMap { DirectKey.peer(in: $0, of: viewer) }
        var lastMessage: Message?
        if let messageId = try row.optionalInt("lm_id") {
            lastMessage = Message(
                id: MessageID(messageId), conversationId: id, seq: try row.int("lm_seq"),
                senderId: UserID(try row.int("lm_sender_id")),
                clientMsgId: try row.text("lm_client_msg_id"), kind: MessageKind(rawValue: try row.text("lm_kind")),
                content: try JSONText.decode(JSONValue.self, from: try row.text("lm_content")),
                sentAt: try row.int("lm_sent_at"))
        }
        self.init(
            id: id, kind: ConversationKind(rawValue: try row.text("kind")) ?? .group,
            name: try row.optionalText("name"), peerId: peer,
            memberCount: Int(try row.int("member_count")), maxSeq: try row.int("max_seq"),
            readSeq: try row.int("read_seq"),
            othersReadSeq: try row.int("others_read_seq"), lastMessage: lastMessage,
            createdAt: try row.int("created_at"),
            lastActivityAt: try row.int("last_activity_at"))
    }
}
