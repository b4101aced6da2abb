import GRDB
import ParleyCore

/// Groups: profiles, members, join requests, and the conversations the user left.
///
/// Events and snapshots (a conversation's detail, the list of pending requests) may arrive in
/// any order: a push runs ahead of the sync page that replays older events, and a snapshot
/// read over HTTP covers only the events that sync pages had brought (`eventsCovered`, as
/// for names). So every member and request row remembers the seq of what last wrote it, and
/// a write applies only if it is at least as new; a removed member stays as a row with
/// `present = 0`, so that an older `members.added` replayed late cannot bring them back.
extension ClientStore {
    /// Saves a conversation and its whole member list, as the server answered them.
    package func saveDetail(_ detail: ConversationDetail) throws {
        try writer.write { db in
            let covered = try Self.syncedEventSeq(db)
            let id = detail.conversation.id
            _ = try Self.saveConversation(db, detail.conversation, eventsCovered: covered)
            try Self.saveMembers(db, detail.members, of: id, seq: covered)
            let gone = Set(try Self.presentMembers(db, id)).subtracting(detail.members.map(\.userId))
            try Self.removeMembers(db, Array(gone), from: id, seq: covered)
            try db.execute(sql: "UPDATE conversations SET members_known = 1 WHERE id = ?", arguments: [id.rawValue])
        }
    }

    /// Saves a group's pending join requests as the server listed them: any other request
    /// held as pending was resolved meanwhile.
    package func savePendingRequests(_ requests: [JoinRequest], of id: ConversationID) throws {
        try writer.write { db in
            let covered = try Self.syncedEventSeq(db)
            try db.execute(
                sql: "DELETE FROM join_requests WHERE conversation_id = ? AND state = ? AND event_seq <= ?",
                arguments: [id.rawValue, JoinRequestState.pending.rawValue, covered])
            try Self.saveJoinRequests(db, requests, seq: covered)
        }
    }

    /// Saves one join request as the server answered it.
    package func saveJoinRequest(_ request: JoinRequest) throws {
        try writer.write { db in try Self.saveJoinRequests(db, [request], seq: try Self.syncedEventSeq(db)) }
    }

    // MARK: Reading

    /// The group as this device knows it; `viewer` (the signed-in user) decides which join
    /// requests show.
    public func group(_ id: ConversationID, viewer: UserID?) throws -> GroupSnapshot {
        try writer.read { db in try Self.group(db, id, viewer: viewer) }
    }

    /// The group now, then again after every change.
    public func observeGroup(_ id: ConversationID, viewer: UserID?) -> AsyncValueObservation<GroupSnapshot> {
        ValueObservation.tracking { db in try Self.group(db, id, viewer: viewer) }.removeDuplicates().values(
            in: writer)
    }

    static func group(_ db: Database, _ id: ConversationID, viewer: UserID?) throws -> GroupSnapshot {
        let row = try Row.fetchOne(
            db, sql: "SELECT group_profile, members_known, removal FROM conversations WHERE id = ?",
            arguments: [id.rawValue])
        let members = try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM group_members WHERE conversation_id = ? AND present = 1 ORDER BY joined_at, user_id
                """,
            arguments: [id.rawValue]
        ).map { row in
            Member(
                userId: UserID(row["user_id"]), role: MemberRole(rawValue: row["role"]) ?? .member,
                readSeq: row["read_seq"], joinedAt: row["joined_at"], nickname: row["nickname"],
                mutedUntil: row["muted_until"])
        }
        let viewerManages = members.contains { $0.userId == viewer && $0.role != .member }
        let requests = try String.fetchAll(
            db,
            sql: "SELECT request FROM join_requests WHERE conversation_id = ? AND state = ? AND (? OR user_id = ?)",
            arguments: [id.rawValue, JoinRequestState.pending.rawValue, viewerManages, viewer?.rawValue]
        ).map { try JSONText.decode(JoinRequest.self, from: $0) }.sorted { $0.createdAt < $1.createdAt }
        return GroupSnapshot(
            conversationId: id,
            profile: try (row?["group_profile"] as String?).map { try JSONText.decode(GroupProfile.self, from: $0) },
            members: members, membersAreComplete: row?["members_known"] ?? false, pendingRequests: requests,
            removal: try (row?["removal"] as String?).map { try JSONText.decode(ConversationRemoved.self, from: $0) })
    }

    // MARK: Applying events and snapshots

    /// `conversation.updated`: the name and profile, unless a newer event set them.
    static func applyProfile(_ db: Database, _ updated: ConversationUpdated, seq: Int64) throws {
        try db.execute(
            sql: """
                UPDATE conversations SET name = ?, group_profile = COALESCE(?, group_profile), profile_seq = ?
                WHERE id = ? AND profile_seq < ?
                """,
            arguments: [
                updated.name, try updated.group.map(JSONText.encode), seq, updated.conversationId.rawValue, seq,
            ])
    }

    /// `conversation.added`: the user is in it (again), and its whole history with it.
    static func rejoin(_ db: Database, _ id: ConversationID, seq: Int64) throws {
        try db.execute(
            sql: """
                UPDATE conversations SET removal = NULL, history_due = NULL, membership_seq = ?
                WHERE id = ? AND membership_seq < ?
                """,
            arguments: [seq, id.rawValue, seq])
    }

    /// `conversation.removed`: the user is out of it. Its messages stay; its member list is no
    /// longer followed. Its history runs to `lastSeq` (the notice of the removal), which the
    /// device may not have seen yet: it becomes the known max seq, and what is missing up to it
    /// is due to be fetched, once.
    static func depart(_ db: Database, _ removed: ConversationRemoved, seq: Int64) throws {
        try db.execute(
            sql: """
                UPDATE conversations SET removal = ?, members_known = 0, membership_seq = ?,
                    max_seq = MAX(max_seq, ?), history_due = ?
                WHERE id = ? AND membership_seq < ?
                """,
            arguments: [
                try JSONText.encode(removed), seq, removed.lastSeq, removed.lastSeq, removed.conversationId.rawValue,
                seq,
            ])
    }

    /// `members.added`: new members start as plain members with no nickname and no mute.
    static func addMembers(_ db: Database, _ ids: [UserID], to id: ConversationID, at time: Int64, seq: Int64) throws {
        try saveMembers(db, ids.map { Member(userId: $0, role: .member, readSeq: 0, joinedAt: time) }, of: id, seq: seq)
    }

    /// Members as they now stand.
    static func saveMembers(_ db: Database, _ members: [Member], of id: ConversationID, seq: Int64) throws {
        for member in members {
            try db.execute(
                sql: """
                    INSERT INTO group_members (conversation_id, user_id, role, nickname, muted_until, joined_at, read_seq,
                        present, event_seq)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)
                    ON CONFLICT (conversation_id, user_id) DO UPDATE SET role = excluded.role,
                        nickname = excluded.nickname, muted_until = excluded.muted_until, joined_at = excluded.joined_at,
                        read_seq = MAX(read_seq, excluded.read_seq), present = 1, event_seq = excluded.event_seq
                    WHERE event_seq <= excluded.event_seq
                    """,
                arguments: [
                    id.rawValue, member.userId.rawValue, member.role.rawValue, member.nickname, member.mutedUntil,
                    member.joinedAt, member.readSeq, seq,
                ])
        }
        try countMembers(db, id)
    }

    /// `members.removed`: they are kept as absent rows.
    static func removeMembers(_ db: Database, _ ids: [UserID], from id: ConversationID, seq: Int64) throws {
        for userId in ids {
            try db.execute(
                sql: """
                    INSERT INTO group_members (conversation_id, user_id, role, joined_at, present, event_seq)
                    VALUES (?, ?, 'member', 0, 0, ?)
                    ON CONFLICT (conversation_id, user_id) DO UPDATE SET present = 0, event_seq = excluded.event_seq
                    WHERE event_seq <= excluded.event_seq
                    """,
                arguments: [id.rawValue, userId.rawValue, seq])
        }
        try countMembers(db, id)
    }

    /// `join_request.updated`: the request as it now stands.
    static func saveJoinRequests(_ db: Database, _ requests: [JoinRequest], seq: Int64) throws {
        for request in requests {
            try db.execute(
                sql: """
                    INSERT INTO join_requests (conversation_id, user_id, request, state, event_seq) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (conversation_id, user_id) DO UPDATE SET request = excluded.request,
                        state = excluded.state, event_seq = excluded.event_seq
                    WHERE event_seq <= excluded.event_seq
                    """,
                arguments: [
                    request.conversationId.rawValue, request.userId.rawValue, try JSONText.encode(request),
                    request.state.rawValue, seq,
                ])
        }
    }

    /// A member list followed since it was fetched gives the conversation's member count.
    private static func countMembers(_ db: Database, _ id: ConversationID) throws {
        try db.execute(
            sql: """
                UPDATE conversations SET member_count =
                    (SELECT COUNT(*) FROM group_members WHERE conversation_id = ?1 AND present = 1)
                WHERE id = ?1 AND members_known = 1
                """,
            arguments: [id.rawValue])
    }

    private static func presentMembers(_ db: Database, _ id: ConversationID) throws -> [UserID] {
        try Int64.fetchAll(
            db, sql: "SELECT user_id FROM group_members WHERE conversation_id = ? AND present = 1",
            arguments: [id.rawValue]
        ).map { UserID($0) }
    }
}
