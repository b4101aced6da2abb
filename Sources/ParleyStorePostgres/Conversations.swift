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
        try ConversationRules.checkDirectPair(userId, peerId)
        let key = DirectKey.make(userId, peerId)
        if let id = try await conversationID(connection, directKey: key) { return id }
        try await checkCanMessage(connection, from: userId, to: peerId)
        let created = try await connection.rows(
            """
            INSERT INTO conversations (kind, direct_key, member_count, version, members_version, created_at,
                last_activity_at)
            SELECT 'direct', $1, 2, version, version, $2, $2 FROM (SELECT nextval('change_versions') AS version) AS drawn
            RETURNING id, version
            """,
            [.text(key), .int(now)], logger: logger
        )[0]
        let (id, version) = (ConversationID(try created.int("id")), try created.int("version"))
        try await insertMembers(
            connection, [(userId, .member), (peerId, .member)], into: id, version: version, at: now)
        try await announce(connection, notes, ConversationRules.joinAnnouncements([userId, peerId], to: id), at: now)
        return id
    }

    /// ``DirectKey/peer(in:of:)`` in SQL: the user of the key column `key` who is not
    /// `viewer` (SQL expressions), null when there is none or `key` is null.
    static func directPeer(key: String, of viewer: String) -> String {
        """
        CASE WHEN split_part(\(key), ':', 1)::bigint <> \(viewer) THEN split_part(\(key), ':', 1)::bigint
            WHEN split_part(\(key), ':', 2)::bigint <> \(viewer) THEN split_part(\(key), ':', 2)::bigint END
        """
    }

    public func createGroup(name: String, ownerId: UserID, memberIds: [UserID], memberLimit: Int, at now: Int64)
        async throws -> ConversationSummary
    {
        try await write { connection, notes in
            let others = ConversationRules.groupMembers(owner: ownerId, requested: memberIds)
            try ConversationRules.requireExisting(others, existing: try await self.existingUsers(connection, others))
            try ContactRules.checkCanAdd(blocked: try await self.blocked(connection, between: ownerId, and: others))
            try ConversationRules.checkCapacity(others.count + 1, limit: memberLimit)
            let version = try await self.nextVersion(connection)
            let id = ConversationID(
                try await connection.scalar(
                    Int64.self,
                    """
                    INSERT INTO conversations (kind, name, member_count, member_limit, owner_id, version,
                        members_version, created_at, last_activity_at)
                    VALUES ('group', $1, $2, $3, $4, $5, $5, $6, $6) RETURNING id
                    """,
                    [
                        .text(name), .int(Int64(others.count + 1)), .int(Int64(memberLimit)), .int(ownerId.rawValue),
                        .int(version), .int(now),
                    ], logger: self.logger)!)
            try await self.insertMembers(
                connection, [(ownerId, .owner)] + others.map { ($0, .member) }, into: id, version: version, at: now)
            try await self.announce(
                connection, notes, ConversationRules.joinAnnouncements([ownerId] + others, to: id), at: now)
            return try await self.summary(connection, id, for: ownerId)
        }
    }

    public func conversation(_ id: ConversationID, for userId: UserID) async throws -> ConversationDetail {
        try await read { connection in
            let summary = try await self.summary(connection, id, for: userId)
            let members = try await connection.rows(
                "SELECT * FROM members WHERE conversation_id = $1 ORDER BY joined_at, user_id", [.int(id.rawValue)],
                logger: self.logger
            ).map(Member.init(row:))
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

    /// Ids as one parameter, `1,2,3`, which `string_to_array($n, ',')::bigint[]` reads.
    static func idList(_ users: [UserID]) -> String { users.map { String($0.rawValue) }.joined(separator: ",") }

    func memberIDs(_ connection: PostgresConnection, of conversationId: ConversationID, requiring userId: UserID)
        async throws -> [UserID]
    {
        let members = try await memberList(connection, conversationId)
        try ConversationRules.requireMember(userId, of: members, in: conversationId)
        return members
    }

    func memberList(_ connection: PostgresConnection, _ id: ConversationID) async throws -> [UserID] {
        try await connection.rows(
            "SELECT user_id FROM members WHERE conversation_id = $1", [.int(id.rawValue)], logger: logger
        )
        .map { UserID(try $0.int("user_id")) }
    }

    /// Summaries of `userId`'s conversations matching `condition` (over `c` and `m`); extra
    /// parameters start at `$2`.
    func summaries(
        _ connection: PostgresConnection, for userId: UserID, where condition: String, orderBy order: String,
        limit: Int64,
        _ values: [SQLValue]
    ) async throws -> [ConversationSummary] {
        try await summaryRows(connection, for: userId, where: condition, orderBy: order, limit: limit, values)
            .decodeAll(layout: ConversationSummary.Layout.init) {
                try ConversationSummary(row: $0, layout: $1, viewer: userId)
            }
    }

    /// The rows behind ``summaries(_:for:where:orderBy:limit:_:)``, with each one's `change_version`.
    /// Unread mentions are counted only where something is unread, as on SQLite.
    func summaryRows(
        _ connection: PostgresConnection, for userId: UserID, where condition: String, orderBy order: String,
        limit: Int64,
        _ values: [SQLValue]
    ) async throws -> [PostgresRandomAccessRow] {
        try await connection.rows(
            """
            SELECT c.*, m.read_seq, m.pinned_at, m.muted, m.hidden_seq, m.draft, m.draft_at, m.cleared_seq,
                GREATEST(c.version, m.version) AS change_version,
                (SELECT COALESCE(MAX(o.read_seq), 0) FROM members o
                    WHERE o.conversation_id = c.id AND o.user_id <> m.user_id) AS others_read_seq,
                (SELECT COALESCE(MAX(GREATEST(o.delivered_seq, o.read_seq)), 0) FROM members o
                    WHERE o.conversation_id = c.id AND o.user_id <> m.user_id) AS others_delivered_seq,
                CASE WHEN c.max_seq > GREATEST(m.read_seq, COALESCE(m.cleared_seq, 0)) THEN
                    (SELECT COUNT(DISTINCT x.seq) FROM mentions x
                        WHERE x.conversation_id = c.id AND x.user_id IN (m.user_id, 0) AND x.sender_id <> m.user_id
                        AND x.seq > GREATEST(m.read_seq, COALESCE(m.cleared_seq, 0)))
                ELSE 0 END AS unread_mentions,
                lm.id AS lm_id, lm.seq AS lm_seq, lm.sender_id AS lm_sender_id, lm.client_msg_id AS lm_client_msg_id,
                lm.kind AS lm_kind, lm.content AS lm_content, lm.sent_at AS lm_sent_at, lm.quote AS lm_quote,
                lm.forwarded AS lm_forwarded, lm.edited_at AS lm_edited_at,
                EXISTS (SELECT 1 FROM deleted_messages d
                    WHERE d.user_id = m.user_id AND d.conversation_id = c.id AND d.seq = c.max_seq) AS lm_deleted
            FROM members m
            JOIN conversations c ON c.id = m.conversation_id
            LEFT JOIN messages lm ON lm.conversation_id = c.id AND lm.seq = c.max_seq
            WHERE m.user_id = $1 AND (\(condition))
            ORDER BY \(order)
            LIMIT $\(values.count + 2)
            """,
            [.int(userId.rawValue)] + values + [.int(limit)], logger: logger)
    }

    func summary(_ connection: PostgresConnection, _ id: ConversationID, for userId: UserID) async throws
        -> ConversationSummary
    {
        if let summary = try await summaries(
            connection, for: userId, where: "c.id = $2", orderBy: "c.id", limit: 1, [.int(id.rawValue)]
        ).first {
            return summary
        }
        let exists = try await connection.scalar(
            Int64.self, "SELECT id FROM conversations WHERE id = $1", [.int(id.rawValue)], logger: logger)
        throw ConversationRules.noSummary(of: id, exists: exists != nil)
    }

    /// Which of `ids` are users (deleted ones included), in one statement.
    func existingUsers(_ connection: PostgresConnection, _ ids: [UserID]) async throws -> Set<UserID> {
        guard !ids.isEmpty else { return [] }
        return Set(
            try await connection.rows(
                "SELECT id FROM users WHERE id = ANY(string_to_array($1, ',')::bigint[])", [.text(Self.idList(ids))],
                logger: logger
            ).map { UserID(try $0.int("id")) })
    }

    func conversationID(_ connection: PostgresConnection, directKey key: String) async throws -> ConversationID? {
        try await connection.scalar(
            Int64.self, "SELECT id FROM conversations WHERE direct_key = $1", [.text(key)], logger: logger
        ).map { ConversationID($0) }
    }

    func insertMembers(
        _ connection: PostgresConnection, _ members: [(UserID, MemberRole)], into id: ConversationID, version: Int64,
        at now: Int64
    ) async throws {
        guard !members.isEmpty else { return }
        // One statement, in the order given.
        try await connection.rows(
            """
            INSERT INTO members (conversation_id, user_id, role, version, joined_at)
            SELECT $1, joining.user_id, joining.role, $4, $5
            FROM unnest(string_to_array($2, ',')::bigint[], string_to_array($3, ',')) WITH ORDINALITY
                AS joining(user_id, role, position)
            ORDER BY joining.position
            """,
            [
                .int(id.rawValue), .text(Self.idList(members.map(\.0))),
                .text(members.map(\.1.rawValue).joined(separator: ",")), .int(version), .int(now),
            ], logger: logger)
    }
}

extension ConversationSummary {
    /// Decodes a row of the summary query whose columns are at `layout`
    /// (``PostgresStore/summaryRows(_:for:where:orderBy:limit:_:)``).
    init(row: PostgresRandomAccessRow, layout: Layout, viewer: UserID) throws {
        let id = ConversationID(try row.int(layout.id))
        let peer = try row.optionalText(layout.directKey).flatMap { DirectKey.peer(in: $0, of: viewer) }
        let settings = try ConversationSettings(row: row, layout: layout.settings)
        var lastMessage: Message?
        if try row.optionalInt(layout.lastMessageId) != nil {
            lastMessage = MessageRules.seen(
                try Message(row: row, layout: layout.lastMessage, conversationId: id),
                deletedForViewer: try row.bool(layout.lastMessageDeleted), clearedUpTo: settings.clearedUpToSeq)
        }
        self.init(
            id: id, kind: ConversationKind(rawValue: try row.text(layout.kind)) ?? .group,
            name: try row.optionalText(layout.name), peerId: peer,
            memberCount: Int(try row.int(layout.memberCount)), maxSeq: try row.int(layout.maxSeq),
            readSeq: try row.int(layout.readSeq),
            othersReadSeq: try row.int(layout.othersReadSeq),
            othersDeliveredSeq: try row.int(layout.othersDeliveredSeq),
            unreadMentions: Int(try row.int(layout.unreadMentions)), lastMessage: lastMessage,
            createdAt: try row.int(layout.createdAt), lastActivityAt: try row.int(layout.lastActivityAt),
            group: try GroupProfile(row: row, layout: layout.group), settings: settings)
    }
}

extension ConversationSettings {
    /// Decodes a member's settings columns, at `layout` when it is known.
    init(row: PostgresRandomAccessRow, layout: Layout? = nil) throws {
        let layout = layout ?? Layout(PostgresColumns(row))
        self.init(
            pinnedAt: try row.optionalInt(layout.pinnedAt), muted: try row.bool(layout.muted),
            hiddenUpToSeq: try row.optionalInt(layout.hiddenSeq), draft: try row.text(layout.draft),
            draftSavedAt: try row.optionalInt(layout.draftAt), clearedUpToSeq: try row.optionalInt(layout.clearedSeq))
    }
}

extension Member {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            userId: UserID(try row.int("user_id")), role: MemberRole(rawValue: try row.text("role")) ?? .member,
            readSeq: try row.int("read_seq"), joinedAt: try row.int("joined_at"),
            nickname: try row.optionalText("nickname"), mutedUntil: try row.optionalInt("muted_until"))
    }
}

extension GroupProfile {
    /// Decodes the profile columns of a `conversations` row, at `layout` when it is known; nil
    /// for a direct conversation.
    init?(row: PostgresRandomAccessRow, layout: Layout? = nil) throws {
        let layout = layout ?? Layout(PostgresColumns(row))
        guard try row.text(layout.kind) == ConversationKind.group.rawValue else { return nil }
        var announcement: GroupAnnouncement?
        if let text = try row.optionalText(layout.announcement) {
            announcement = GroupAnnouncement(
                text: text, updatedBy: UserID(try row.optionalInt(layout.announcementBy) ?? 0),
                updatedAt: try row.optionalInt(layout.announcementAt) ?? 0)
        }
        self.init(
            name: try row.optionalText(layout.name) ?? "", description: try row.text(layout.description),
            avatar: try row.optionalText(layout.avatar), announcement: announcement,
            joinPolicy: JoinPolicy(rawValue: try row.text(layout.joinPolicy)) ?? .inviteOnly,
            muteAll: try row.bool(layout.muteAll), memberLimit: Int(try row.int(layout.memberLimit)),
            ownerId: UserID(try row.optionalInt(layout.ownerId) ?? 0),
            dissolvedAt: try row.optionalInt(layout.dissolvedAt),
            everyoneMayMentionAll: try row.bool(layout.everyoneMayMentionAll))
    }
}

extension InviteLink {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            code: try row.text("code"), conversationId: ConversationID(try row.int("conversation_id")),
            createdBy: UserID(try row.int("created_by")), createdAt: try row.int("created_at"),
            expiresAt: try row.optionalInt("expires_at"), maxUses: try row.optionalInt("max_uses").map { Int($0) },
            uses: Int(try row.int("uses")), revokedAt: try row.optionalInt("revoked_at"))
    }
}

extension JoinRequest {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            conversationId: ConversationID(try row.int("conversation_id")), userId: UserID(try row.int("user_id")),
            inviteCode: try row.text("invite_code"), message: try row.text("message"),
            state: JoinRequestState(rawValue: try row.text("state")) ?? .rejected,
            createdAt: try row.int("created_at"), resolvedBy: try row.optionalInt("resolved_by").map { UserID($0) },
            resolvedAt: try row.optionalInt("resolved_at"))
    }
}
