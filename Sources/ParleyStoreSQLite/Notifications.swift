import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func notificationSettings(of userId: UserID) async throws -> NotificationSettings {
        try await pool.read { db in try Self.notificationSettings(db, of: userId) }
    }

    private static func notificationSettings(_ db: Database, of userId: UserID) throws -> NotificationSettings {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT notifications FROM users WHERE id = ?", arguments: [userId.rawValue])
        else { throw ParleyError(.userNotFound, "No such user.") }
        return try NotificationSettings(stored: row["notifications"])
    }

    public func updateNotificationSettings(
        of userId: UserID, _ update: UpdateNotificationSettingsRequest, at now: Int64
    ) async throws -> NotificationSettings {
        try await write { db in
            let current = try Self.notificationSettings(db, of: userId)
            let next = current.updated(by: update)
            guard next != current else { return current }
            try db.execute(
                sql: "UPDATE users SET notifications = ? WHERE id = ?",
                arguments: [try JSONText.encode(next), userId.rawValue])
            try self.announce(db, [Announcement(to: [userId], NotificationsUpdated(settings: next).body)], at: now)
            return next
        }
    }

    public func registerPushToken(
        _ request: RegisterPushTokenRequest, for sessionId: SessionID, of userId: UserID, at now: Int64
    ) async throws -> PushToken {
        let token = PushToken(request, at: now)
        try await write { db in
            try db.execute(
                sql: "DELETE FROM push_tokens WHERE platform = ? AND token = ?",
                arguments: [token.platform.rawValue, token.token])
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO push_tokens (session_id, user_id, platform, token, app_id, sandbox, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    sessionId.rawValue, userId.rawValue, token.platform.rawValue, token.token, token.appId,
                    token.sandbox, now,
                ])
        }
        return token
    }

    public func pushTokenHolders(registeredSince since: Int64) async throws -> [UserID] {
        try await pool.read { db in
            try Int64.fetchAll(
                db, sql: "SELECT DISTINCT user_id FROM push_tokens WHERE created_at >= ?", arguments: [since]
            ).map { UserID($0) }
        }
    }

    public func removePushToken(of sessionId: SessionID) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM push_tokens WHERE session_id = ?", arguments: [sessionId.rawValue])
        }
    }

    public func removePushToken(_ token: String, platform: PushPlatform) async throws {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM push_tokens WHERE platform = ? AND token = ?", arguments: [platform.rawValue, token])
        }
    }

    public func pushAudience(
        of users: [UserID]?, in conversationId: ConversationID?, from actor: UserID, at now: Int64
    ) async throws
        -> PushAudience
    {
        try await pool.read { db in
            let actorName =
                try String.fetchOne(
                    db, sql: "SELECT nickname FROM users WHERE id = ?", arguments: [actor.rawValue]) ?? ""
            let groupName = try conversationId.flatMap {
                try String.fetchOne(
                    db, sql: "SELECT name FROM conversations WHERE id = ? AND kind = 'group'", arguments: [$0.rawValue])
            }
            // Without `users`, `?3` is the empty list: named so the arguments are always four.
            let audience =
                users == nil
                ? "t.user_id IN (SELECT user_id FROM members WHERE conversation_id = ?2) AND ?3 = '[]'"
                : "t.user_id IN (SELECT value FROM json_each(?3))"
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT t.*, u.notifications,
                        COALESCE((SELECT muted FROM members WHERE conversation_id = ?2 AND user_id = t.user_id), 0)
                            AS conversation_muted,
                        (SELECT COALESCE(SUM(MAX(c.max_seq - m.read_seq, 0)), 0) FROM members m
                            JOIN conversations c ON c.id = m.conversation_id
                            WHERE m.user_id = t.user_id AND m.muted = 0) AS badge
                    FROM push_tokens t
                    JOIN sessions s ON s.id = t.session_id AND s.revoked_at IS NULL AND s.refresh_expires_at > ?4
                    JOIN users u ON u.id = t.user_id
                    WHERE \(audience) AND t.user_id <> ?1
                        AND NOT EXISTS (SELECT 1 FROM presence p WHERE p.user_id = t.user_id)
                        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = t.user_id AND b.blocked_id = ?1)
                            OR (b.blocker_id = ?1 AND b.blocked_id = t.user_id))
                    ORDER BY t.user_id, t.session_id
                    """,
                arguments: [
                    actor.rawValue, conversationId?.rawValue, try JSONText.encode((users ?? []).map(\.rawValue)), now,
                ])
            let recipients = PushRecipient.merging(
                try rows.map { row in
                    PushRecipient(
                        userId: UserID(row["user_id"]),
                        tokens: [
                            PushToken(
                                platform: PushPlatform(rawValue: row["platform"]), token: row["token"],
                                appId: row["app_id"], sandbox: row["sandbox"], createdAt: row["created_at"])
                        ],
                        settings: try NotificationSettings(stored: row["notifications"]),
                        muted: row["conversation_muted"], badge: row["badge"])
                })
            return PushAudience(actorName: actorName, groupName: groupName, recipients: recipients)
        }
    }
}
