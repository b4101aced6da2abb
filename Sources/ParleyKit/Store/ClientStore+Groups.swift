import GRDB
import ParleyCore

/// Groups: profiles, members, join requests, and the conversations the user left.
///
/// Events, notices and snapshots (a conversation's detail, the list of pending requests) may
/// arrive in any order: a push runs ahead of the sync page that replays older events, a hole
/// in history is filled after later messages arrived, and a snapshot read over HTTP covers
/// only the events that sync pages had brought (`eventsCovered`, as for names). So every row
/// remembers the seq of what last wrote it, and a write applies only if it is at least as new.
///
/// A member row has two such seqs. Who is in the group follows the conversation's own seq
/// (`notice_seq`): joins are known from `member.joined` notices only, removals from
/// `member.left` and `member.removed` notices and from `members.removed` (which names the
/// notice's seq as `lastSeq`), and a snapshot covers every notice up to its conversation's
/// `maxSeq` (`members_seq`). A member's role, mute and nickname follow the user's event
/// stream (`event_seq`). A removed member stays as a row with `present = 0`, so that an older
/// join notice filled in late cannot bring them back.
extension ClientStore {
    /// Saves a conversation and its whole member list, as the server answered them.
    package func saveDetail(_ detail: ConversationDetail) throws {
        try writer.write { db in
            let covered = try Self.syncedEventSeq(db)
            let id = detail.conversation.id
            _ = try Self.saveConversation(db, detail.conversation, eventsCovered: covered)
            try Self.saveMembers(db, detail.members, of: id, seq: covered)
            // The list stands as of the conversation's `maxSeq`: it covers every notice up to it,
            // and wins a tie only at 0, where no notice nor removal has placed anyone yet.
            let cover = detail.conversation.maxSeq
            if cover >= (try Self.membersSeq(db, id)) {
                let gone = Set(try Self.presentMembers(db, id)).subtracting(detail.members.map(\.userId))
                try Self.setPresence(
                    db, detail.members.map { ($0.userId, $0.joinedAt) }, present: true, in: id, at: cover,
                    winsTies: cover == 0)
                try Self.setPresence(
                    db, gone.map { ($0, 0) }, present: false, in: id, at: cover, winsTies: cover == 0)
                try db.execute(
                    sql: "UPDATE conversations SET members_seq = ? WHERE id = ?", arguments: [cover, id.rawValue])
            }
            try db.execute(sql: "UPDATE conversations SET members_known = 1 WHERE id = ?", arguments: [id.rawValue])
            try Self.countMembers(db, id)
        }
    }

    /// Saves the members an addition made, as the server answered it: they are in as of its
    /// `member.joined` notice, as if that notice had arrived, unless a snapshot or a newer
    /// notice already covers it.
    package func saveAdded(_ added: MembersAdded) throws {
        try writer.write { db in
            let id = added.conversationId
            try Self.saveMembers(db, added.members, of: id, seq: try Self.syncedEventSeq(db))
            guard let seq = added.noticeSeq, seq > (try Self.membersSeq(db, id)) else { return }
            try Self.setPresence(
                db, added.members.map { ($0.userId, $0.joinedAt) }, present: true, in: id, at: seq, winsTies: false)
            try Self.countMembers(db, id)
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

    /// A `member.joined`, `member.left` or `member.removed` notice at `seq`, sent at `time`:
    /// whom it adds or removes, unless a snapshot or a newer notice already covers it. Other
    /// notices change no member.
    static func applyNotice(_ db: Database, _ notice: SystemNotice, in id: ConversationID, seq: Int64, at time: Int64)
        throws
    {
        let (users, joined): ([UserID], Bool) =
            switch notice.event {
            case .memberJoined: (notice.userIds, true)
            case .memberLeft: (notice.actorId.map { [$0] } ?? [], false)
            case .memberRemoved: (notice.userIds, false)
            default: ([], false)
            }
        guard !users.isEmpty, seq > (try membersSeq(db, id)) else { return }
        try setPresence(db, users.map { ($0, time) }, present: joined, in: id, at: seq, winsTies: false)
        try countMembers(db, id)
    }

    /// A `deleted` placeholder for a seq this device never held, above the member list's
    /// snapshot, may hide a membership notice (the user deleted it for themselves on another
    /// device): the list is no longer known whole, so that it is read again.
    static func doubtMembers(_ db: Database, _ id: ConversationID, placeholderAt seq: Int64) throws {
        try db.execute(
            sql: """
                UPDATE conversations SET members_known = 0
                WHERE id = ?1 AND kind = 'group' AND members_known = 1 AND members_seq < ?2
                    AND NOT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?1 AND seq = ?2)
                """,
            arguments: [id.rawValue, seq])
    }

    /// `members.removed`: they are out as of `lastSeq` (the notice of the removal, or the
    /// dissolved group's last seq, at which a snapshot may have been read before they left),
    /// and a later return starts them afresh as plain members.
    static func removeMembers(_ db: Database, _ removed: MembersRemoved, seq: Int64) throws {
        let id = removed.conversationId
        try saveMembers(
            db, removed.userIds.map { Member(userId: $0, role: .member, readSeq: 0, joinedAt: 0) }, of: id, seq: seq)
        guard let lastSeq = removed.lastSeq, lastSeq >= (try membersSeq(db, id)) else { return }
        try setPresence(db, removed.userIds.map { ($0, 0) }, present: false, in: id, at: lastSeq, winsTies: true)
        try countMembers(db, id)
    }

    /// Members' roles, mutes and nicknames as they stood at event `seq`, unless a newer event
    /// set them. A member not held yet is kept absent until a notice or a snapshot puts them
    /// in the group.
    static func saveMembers(_ db: Database, _ members: [Member], of id: ConversationID, seq: Int64) throws {
        for member in members {
            try db.execute(
                sql: """
                    INSERT INTO group_members (conversation_id, user_id, role, nickname, muted_until, joined_at, read_seq,
                        present, event_seq)
                    VALUES (?, ?, ?, ?, ?, 0, ?, 0, ?)
                    ON CONFLICT (conversation_id, user_id) DO UPDATE SET role = excluded.role,
                        nickname = excluded.nickname, muted_until = excluded.muted_until,
                        read_seq = MAX(read_seq, excluded.read_seq), event_seq = excluded.event_seq
                    WHERE event_seq <= excluded.event_seq
                    """,
                arguments: [
                    id.rawValue, member.userId.rawValue, member.role.rawValue, member.nickname, member.mutedUntil,
                    member.readSeq, seq,
                ])
        }
    }

    /// Whether each of `users` is in the group as of the conversation's seq `seq`, unless a
    /// later notice said otherwise (or one at `seq`, when the write does not win ties); one who
    /// joins takes the time of their joining.
    private static func setPresence(
        _ db: Database, _ users: [(UserID, joinedAt: Int64)], present: Bool, in id: ConversationID, at seq: Int64,
        winsTies: Bool
    ) throws {
        for (userId, joinedAt) in users {
            try db.execute(
                sql: """
                    INSERT INTO group_members (conversation_id, user_id, role, joined_at, present, event_seq, notice_seq)
                    VALUES (?, ?, 'member', ?, ?, 0, ?)
                    ON CONFLICT (conversation_id, user_id) DO UPDATE SET present = excluded.present,
                        notice_seq = excluded.notice_seq,
                        joined_at = CASE WHEN excluded.present THEN excluded.joined_at ELSE joined_at END
                    WHERE notice_seq < excluded.notice_seq OR (? AND notice_seq = excluded.notice_seq)
                    """,
                arguments: [id.rawValue, userId.rawValue, joinedAt, present, seq, winsTies])
        }
    }

    /// The conversation seq up to which the member list held is a snapshot's.
    private static func membersSeq(_ db: Database, _ id: ConversationID) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT members_seq FROM conversations WHERE id = ?", arguments: [id.rawValue])
            ?? 0
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
    static func countMembers(_ db: Database, _ id: ConversationID) throws {
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
