import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func changeGroup(_ id: ConversationID, _ change: GroupChange, by actorId: UserID, at now: Int64)
        async throws -> GroupOutcome
    {
        try await write { connection, notes in
            let state = try await self.groupState(connection, id, for: change, by: actorId)
            let (effects, decided) = try GroupRules.decide(change, in: state, by: actorId, at: now)
            var outcome = decided
            if !effects.isEmpty {
                outcome.noticeSeq = try await self.apply(connection, notes, effects, to: id, by: actorId, at: now)
            }
            return outcome
        }
    }

    public func invite(_ code: String) async throws -> (link: InviteLink, group: GroupProfile, memberCount: Int) {
        try await read { connection in
            guard
                let link = try await connection.rows(
                    "SELECT * FROM invite_links WHERE code = $1", [.text(code)], logger: self.logger
                ).first.map(InviteLink.init(row:)),
                let row = try await connection.rows(
                    "SELECT * FROM conversations WHERE id = $1", [.int(link.conversationId.rawValue)],
                    logger: self.logger
                ).first,
                let profile = try GroupProfile(row: row)
            else { throw GroupRules.inviteNotFound() }
            return (link, profile, Int(try row.int("member_count")))
        }
    }

    public func inviteLinks(of id: ConversationID, for userId: UserID) async throws -> [InviteLink] {
        try await read { connection in
            let member = try await self.member(connection, userId, of: id)
            let links = try await connection.rows(
                "SELECT * FROM invite_links WHERE conversation_id = $1 ORDER BY created_at DESC, code",
                [.int(id.rawValue)], logger: self.logger
            ).map(InviteLink.init(row:))
            return GroupRules.visibleLinks(links, to: member)
        }
    }

    public func joinRequests(of id: ConversationID, for userId: UserID) async throws -> [JoinRequest] {
        try await read { connection in
            try GroupRules.checkCanSeeRequests(try await self.member(connection, userId, of: id))
            return try await self.pendingRequests(connection, of: id)
        }
    }

    /// `userId`'s membership of `id`; throws `not_a_member` (or `conversation_not_found`).
    private func member(_ connection: PostgresConnection, _ userId: UserID, of id: ConversationID) async throws
        -> Member
    {
        guard
            let row = try await connection.rows(
                "SELECT * FROM members WHERE conversation_id = $1 AND user_id = $2",
                [.int(id.rawValue), .int(userId.rawValue)], logger: logger
            ).first
        else {
            let exists = try await connection.scalar(
                Int64.self, "SELECT id FROM conversations WHERE id = $1", [.int(id.rawValue)], logger: logger)
            throw ConversationRules.noSummary(of: id, exists: exists != nil)
        }
        return try Member(row: row)
    }

    private func pendingRequests(_ connection: PostgresConnection, of id: ConversationID) async throws
        -> [JoinRequest]
    {
        try await connection.rows(
            """
            SELECT * FROM join_requests WHERE conversation_id = $1 AND state = 'pending' ORDER BY created_at, user_id
            """,
            [.int(id.rawValue)], logger: logger
        ).map(JoinRequest.init(row:))
    }

    /// Records who joins and who leaves at members_version `version`, so that nodes that take
    /// a message sent before it from the fan-out still find the members of its moment.
    private func logMemberChanges(
        _ connection: PostgresConnection, _ effects: GroupEffects, of id: ConversationID, at version: Int64
    ) async throws {
        let changes = effects.added.map { ($0, true) } + effects.removed.map { ($0, false) }
        for (userId, joined) in changes {
            try await connection.rows(
                """
                INSERT INTO member_changes (conversation_id, members_version, user_id, joined) VALUES ($1, $2, $3, $4)
                """,
                [.int(id.rawValue), .int(version), .int(userId.rawValue), .bool(joined)], logger: logger)
        }
    }

    /// The facts ``GroupRules`` needs for `change`.
    private func groupState(
        _ connection: PostgresConnection, _ id: ConversationID, for change: GroupChange, by actorId: UserID
    ) async throws -> GroupState {
        guard
            let row = try await connection.rows(
                "SELECT * FROM conversations WHERE id = $1", [.int(id.rawValue)], logger: logger
            ).first
        else {
            throw ParleyError(.conversationNotFound, "Conversation \(id) does not exist.")
        }
        let members = try await connection.rows(
            "SELECT * FROM members WHERE conversation_id = $1 ORDER BY joined_at, user_id", [.int(id.rawValue)],
            logger: logger
        ).map(Member.init(row:))
        let links = try await connection.rows(
            "SELECT * FROM invite_links WHERE conversation_id = $1", [.int(id.rawValue)], logger: logger
        ).map(InviteLink.init(row:))
        return GroupState(
            id: id, kind: ConversationRules.kind(stored: try row.text("kind")), maxSeq: try row.int("max_seq"),
            profile: try GroupProfile(row: row),
            members: members, links: links,
            pendingRequests: try await pendingRequests(connection, of: id),
            existingUsers: try await existingUsers(connection, change.usersToCheck),
            blockedUsers: try await blocked(connection, between: actorId, and: change.usersToCheck))
    }

    /// Writes what ``GroupRules`` decided, in the order ``GroupEffects`` gives; answers the
    /// seq of the last notice written.
    private func apply(
        _ connection: PostgresConnection, _ notes: Notifications, _ effects: GroupEffects, to id: ConversationID,
        by actorId: UserID, at now: Int64
    ) async throws -> Int64? {
        let version = try await nextVersion(connection)
        if let profile = effects.profile {
            try await connection.rows(
                """
                UPDATE conversations SET name = $1, description = $2, avatar = $3, announcement = $4,
                    announcement_by = $5, announcement_at = $6, join_policy = $7, mute_all = $8, owner_id = $9,
                    dissolved_at = $10, version = $11, everyone_may_mention_all = $13
                WHERE id = $12
                """,
                [
                    .text(profile.name), .text(profile.description), SQLValue(profile.avatar),
                    SQLValue(profile.announcement?.text), SQLValue(profile.announcement?.updatedBy.rawValue),
                    SQLValue(profile.announcement?.updatedAt), .text(profile.joinPolicy.rawValue),
                    .bool(profile.muteAll), .int(profile.ownerId.rawValue), SQLValue(profile.dissolvedAt),
                    .int(version), .int(id.rawValue), .bool(profile.everyoneMayMentionAll),
                ], logger: logger)
        }
        try await insertMembers(connection, effects.added.map { ($0, .member) }, into: id, version: version, at: now)
        for member in effects.updatedMembers {
            try await connection.rows(
                """
                UPDATE members SET role = $1, nickname = $2, muted_until = $3, version = $4
                WHERE conversation_id = $5 AND user_id = $6
                """,
                [
                    .text(member.role.rawValue), SQLValue(member.nickname), SQLValue(member.mutedUntil), .int(version),
                    .int(id.rawValue), .int(member.userId.rawValue),
                ], logger: logger)
        }
        for link in effects.links {
            try await connection.rows(
                """
                INSERT INTO invite_links (code, conversation_id, created_by, created_at, expires_at, max_uses, uses,
                    revoked_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (code) DO UPDATE SET uses = excluded.uses, revoked_at = excluded.revoked_at
                WHERE invite_links.conversation_id = excluded.conversation_id
                """,
                [
                    .text(link.code), .int(id.rawValue), .int(link.createdBy.rawValue), .int(link.createdAt),
                    SQLValue(link.expiresAt), SQLValue(link.maxUses.map { Int64($0) }), .int(Int64(link.uses)),
                    SQLValue(link.revokedAt),
                ], logger: logger)
        }
        for request in effects.requests {
            try await connection.rows(
                """
                INSERT INTO join_requests (conversation_id, user_id, invite_code, message, state, created_at,
                    resolved_by, resolved_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (conversation_id, user_id) DO UPDATE SET invite_code = excluded.invite_code,
                    message = excluded.message, state = excluded.state, created_at = excluded.created_at,
                    resolved_by = excluded.resolved_by, resolved_at = excluded.resolved_at
                """,
                [
                    .int(id.rawValue), .int(request.userId.rawValue), .text(request.inviteCode), .text(request.message),
                    .text(request.state.rawValue), .int(request.createdAt), SQLValue(request.resolvedBy?.rawValue),
                    SQLValue(request.resolvedAt),
                ], logger: logger)
        }
        if effects.changesMembership {
            // Before the notices: their NOTIFYs carry the new version, so no node takes the
            // old member list from its cache for them.
            try await connection.rows(
                "UPDATE conversations SET members_version = $1 WHERE id = $2", [.int(version), .int(id.rawValue)],
                logger: logger)
            try await logMemberChanges(connection, effects, of: id, at: version)
        }
        var noticeSeq: Int64?
        for notice in effects.notices {
            // Nodes deliver to the members as they are at the commit, and to those removed here.
            noticeSeq =
                try await insert(
                    connection, notes, try NewMessage(notice: notice, in: id, by: actorId, at: now), into: id,
                    alsoTo: effects.removed
                ).seq
        }
        for userId in effects.removed {
            try await connection.rows(
                "DELETE FROM members WHERE conversation_id = $1 AND user_id = $2",
                [.int(id.rawValue), .int(userId.rawValue)], logger: logger)
            try await connection.rows(
                """
                INSERT INTO former_members (conversation_id, user_id, read_up_to) VALUES ($1, $2, $3)
                ON CONFLICT (conversation_id, user_id) DO UPDATE SET read_up_to = excluded.read_up_to
                """,
                [.int(id.rawValue), .int(userId.rawValue), .int(effects.removedReadUpTo)], logger: logger)
        }
        if effects.changesMembership {
            try await connection.rows(
                """
                UPDATE conversations SET member_count = (SELECT COUNT(*) FROM members WHERE conversation_id = $1),
                    version = GREATEST(version, $2)
                WHERE id = $1
                """,
                [.int(id.rawValue), .int(version)], logger: logger)
        }
        try await announce(connection, notes, effects.announcements, at: now)
        return noticeSeq
    }
}
