import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func changeGroup(_ id: ConversationID, _ change: GroupChange, by actorId: UserID, at now: Int64)
        async throws -> GroupOutcome
    {
        try await write { db in
            let state = try self.groupState(db, id, for: change, by: actorId)
            let (effects, decided) = try GroupRules.decide(change, in: state, by: actorId, at: now)
            var outcome = decided
            if !effects.isEmpty { outcome.noticeSeq = try self.apply(db, effects, to: id, by: actorId, at: now) }
            return outcome
        }
    }

    public func invite(_ code: String) async throws -> (link: InviteLink, group: GroupProfile, memberCount: Int) {
        try await pool.read { db in
            guard
                let link = try Row.fetchOne(db, sql: "SELECT * FROM invite_links WHERE code = ?", arguments: [code])
                    .map(InviteLink.init(row:)),
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM conversations WHERE id = ?", arguments: [link.conversationId.rawValue]),
                let profile = GroupProfile(row: row)
            else { throw GroupRules.inviteNotFound() }
            return (link, profile, row["member_count"])
        }
    }

    public func inviteLinks(of id: ConversationID, for userId: UserID) async throws -> [InviteLink] {
        try await pool.read { db in
            let member = try Self.member(db, userId, of: id)
            let links = try Row.fetchAll(
                db, sql: "SELECT * FROM invite_links WHERE conversation_id = ? ORDER BY created_at DESC, code",
                arguments: [id.rawValue]
            ).map(InviteLink.init(row:))
            return GroupRules.visibleLinks(links, to: member)
        }
    }

    public func joinRequests(of id: ConversationID, for userId: UserID) async throws -> [JoinRequest] {
        try await pool.read { db in
            try GroupRules.checkCanSeeRequests(try Self.member(db, userId, of: id))
            return try Self.pendingRequests(db, of: id)
        }
    }

    /// `userId`'s membership of `id`; throws `not_a_member` (or `conversation_not_found`).
    private static func member(_ db: Database, _ userId: UserID, of id: ConversationID) throws -> Member {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM members WHERE conversation_id = ? AND user_id = ?",
                arguments: [id.rawValue, userId.rawValue])
        else {
            let exists = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM conversations WHERE id = ?", arguments: [id.rawValue])
            throw ConversationRules.noSummary(of: id, exists: exists == true)
        }
        return Member(row: row)
    }

    private static func pendingRequests(_ db: Database, of id: ConversationID) throws -> [JoinRequest] {
        try Row.decodeAll(
            db,
            sql:
                "SELECT * FROM join_requests WHERE conversation_id = ? AND state = 'pending' ORDER BY created_at, user_id",
            arguments: [id.rawValue], JoinRequest.init(row:))
    }

    /// The facts ``GroupRules`` needs for `change`.
    private func groupState(_ db: Database, _ id: ConversationID, for change: GroupChange, by actorId: UserID)
        throws -> GroupState
    {
        guard
            let (kind, maxSeq, profile) = try Row.decodeFirst(
                db, sql: "SELECT * FROM conversations WHERE id = ?", arguments: [id.rawValue],
                { row -> (String, Int64, GroupProfile?) in (row["kind"], row["max_seq"], GroupProfile(row: row)) })
        else {
            throw ParleyError(.conversationNotFound, "Conversation \(id) does not exist.")
        }
        let members = try Row.decodeAll(
            db, sql: "SELECT * FROM members WHERE conversation_id = ? ORDER BY joined_at, user_id",
            arguments: [id.rawValue], Member.init(row:))
        let links = try Row.decodeAll(
            db, sql: "SELECT * FROM invite_links WHERE conversation_id = ?", arguments: [id.rawValue],
            InviteLink.init(row:))
        return GroupState(
            id: id, kind: ConversationRules.kind(stored: kind), maxSeq: maxSeq,
            profile: profile,
            members: members, links: links,
            pendingRequests: try Self.pendingRequests(db, of: id),
            existingUsers: try Self.existingUsers(db, change.usersToCheck),
            blockedUsers: try Self.blocked(db, between: actorId, and: change.usersToCheck))
    }

    /// Writes what ``GroupRules`` decided, in the order ``GroupEffects`` gives; answers the
    /// seq of the last notice written.
    private func apply(
        _ db: Database, _ effects: GroupEffects, to id: ConversationID, by actorId: UserID, at now: Int64
    ) throws -> Int64? {
        let version = try nextVersion(db)
        if let profile = effects.profile {
            try db.run(
                """
                UPDATE conversations SET name = ?, description = ?, avatar = ?, announcement = ?,
                    announcement_by = ?, announcement_at = ?, join_policy = ?, mute_all = ?, owner_id = ?,
                    dissolved_at = ?, everyone_may_mention_all = ?, version = ?
                WHERE id = ?
                """,
                [
                    profile.name, profile.description, profile.avatar, profile.announcement?.text,
                    profile.announcement?.updatedBy.rawValue, profile.announcement?.updatedAt,
                    profile.joinPolicy.rawValue, profile.muteAll, profile.ownerId.rawValue, profile.dissolvedAt,
                    profile.everyoneMayMentionAll, version, id.rawValue,
                ])
        }
        try insertMembers(db, effects.added.map { ($0, .member) }, into: id, version: version, at: now)
        for member in effects.updatedMembers {
            try db.run(
                """
                UPDATE members SET role = ?, nickname = ?, muted_until = ?, version = ?
                WHERE conversation_id = ? AND user_id = ?
                """,
                [
                    member.role.rawValue, member.nickname, member.mutedUntil, version, id.rawValue,
                    member.userId.rawValue,
                ])
        }
        for link in effects.links {
            try db.run(
                """
                INSERT INTO invite_links (code, conversation_id, created_by, created_at, expires_at, max_uses, uses,
                    revoked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (code) DO UPDATE SET uses = excluded.uses, revoked_at = excluded.revoked_at
                WHERE invite_links.conversation_id = excluded.conversation_id
                """,
                [
                    link.code, id.rawValue, link.createdBy.rawValue, link.createdAt, link.expiresAt, link.maxUses,
                    link.uses, link.revokedAt,
                ])
        }
        for request in effects.requests {
            try db.run(
                """
                INSERT OR REPLACE INTO join_requests (conversation_id, user_id, invite_code, message, state,
                    created_at, resolved_by, resolved_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    id.rawValue, request.userId.rawValue, request.inviteCode, request.message, request.state.rawValue,
                    request.createdAt, request.resolvedBy?.rawValue, request.resolvedAt,
                ])
        }
        var noticeSeq: Int64?
        for notice in effects.notices {
            noticeSeq =
                try insert(
                    db, try NewMessage(notice: notice, in: id, by: actorId, at: now), into: id,
                    recipients: effects.noticeRecipients
                ).seq
        }
        for userId in effects.removed {
            try db.run(
                "DELETE FROM members WHERE conversation_id = ? AND user_id = ?",
                [id.rawValue, userId.rawValue])
            try db.run(
                """
                INSERT INTO former_members (conversation_id, user_id, read_up_to) VALUES (?, ?, ?)
                ON CONFLICT (conversation_id, user_id) DO UPDATE SET read_up_to = excluded.read_up_to
                """,
                [id.rawValue, userId.rawValue, effects.removedReadUpTo])
        }
        if effects.changesMembership {
            try db.run(
                """
                UPDATE conversations
                SET member_count = (SELECT COUNT(*) FROM members WHERE conversation_id = ?1), members_version = ?2,
                    version = MAX(version, ?2)
                WHERE id = ?1
                """, [id.rawValue, version])
        }
        try announce(db, effects.announcements, at: now)
        return noticeSeq
    }
}
