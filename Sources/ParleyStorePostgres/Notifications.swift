import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func notificationSettings(of userId: UserID) async throws -> NotificationSettings {
        try await read { connection in try await self.notificationSettings(connection, of: userId, lock: false) }
    }

    private func notificationSettings(_ connection: PostgresConnection, of userId: UserID, lock: Bool) async throws
        -> NotificationSettings
    {
        guard
            let row = try await connection.rows(
                "SELECT notifications FROM users WHERE id = $1\(lock ? " FOR UPDATE" : "")", [.int(userId.rawValue)],
                logger: logger
            ).first
        else { throw ParleyError(.userNotFound, "No such user.") }
        return try NotificationSettings(stored: try row.optionalText("notifications"))
    }

    public func updateNotificationSettings(
        of userId: UserID, _ update: UpdateNotificationSettingsRequest, at now: Int64
    ) async throws -> NotificationSettings {
        try await write { connection, notes in
            let current = try await self.notificationSettings(connection, of: userId, lock: true)
            let next = current.updated(by: update)
            guard next != current else { return current }
            try await connection.rows(
                "UPDATE users SET notifications = $1 WHERE id = $2",
                [.text(try JSONText.encode(next)), .int(userId.rawValue)],
                logger: self.logger)
            try await self.announce(
                connection, notes, [Announcement(to: [userId], NotificationsUpdated(settings: next).body)], at: now)
            return next
        }
    }

    public func registerPushToken(
        _ request: RegisterPushTokenRequest, for sessionId: SessionID, of userId: UserID, at now: Int64
    ) async throws -> PushToken {
        let token = PushToken(request, at: now)
        try await write { connection, _ in
            try await connection.rows(
                "DELETE FROM push_tokens WHERE (platform = $1 AND token = $2) OR session_id = $3",
                [.text(token.platform.rawValue), .text(token.token), .int(sessionId.rawValue)], logger: self.logger)
            try await connection.rows(
                """
                INSERT INTO push_tokens (session_id, user_id, platform, token, app_id, sandbox, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """,
                [
                    .int(sessionId.rawValue), .int(userId.rawValue), .text(token.platform.rawValue), .text(token.token),
                    .text(token.appId), .bool(token.sandbox), .int(now),
                ], logger: self.logger)
        }
        return token
    }

    public func pushTokenHolders(registeredSince since: Int64) async throws -> [UserID] {
        try await plain { connection in
            try await connection.rows(
                "SELECT DISTINCT user_id FROM push_tokens WHERE created_at >= $1", [.int(since)], logger: self.logger
            ).map { UserID(try $0.int("user_id")) }
        }
    }

    public func removePushToken(of sessionId: SessionID) async throws {
        try await plain { connection in
            try await connection.rows(
                "DELETE FROM push_tokens WHERE session_id = $1", [.int(sessionId.rawValue)], logger: self.logger)
        }
    }

    public func removePushToken(_ token: String, platform: PushPlatform) async throws {
        try await plain { connection in
            try await connection.rows(
                "DELETE FROM push_tokens WHERE platform = $1 AND token = $2", [.text(platform.rawValue), .text(token)],
                logger: self.logger)
        }
    }

    public func pushAudience(
        of users: [UserID]?, in conversationId: ConversationID?, from actor: UserID, at now: Int64
    ) async throws
        -> PushAudience
    {
        try await read { connection in
            let actorName =
                try await connection.scalar(
                    String.self, "SELECT nickname FROM users WHERE id = $1", [.int(actor.rawValue)], logger: self.logger
                )
                ?? ""
            var groupName: String?
            if let conversationId {
                groupName =
                    try await connection.scalar(
                        String?.self, "SELECT name FROM conversations WHERE id = $1 AND kind = 'group'",
                        [.int(conversationId.rawValue)], logger: self.logger) ?? nil
            }
            let audience =
                users == nil
                ? "t.user_id IN (SELECT user_id FROM members WHERE conversation_id = $2)"
                : "t.user_id = ANY(string_to_array($3, ',')::bigint[])"
            let rows = try await connection.rows(
                """
                SELECT t.*, u.notifications,
                    COALESCE((SELECT muted FROM members WHERE conversation_id = $2 AND user_id = t.user_id), false)
                        AS conversation_muted,
                    (SELECT COALESCE(SUM(GREATEST(c.max_seq - m.read_seq, 0)), 0)::bigint FROM members m
                        JOIN conversations c ON c.id = m.conversation_id
                        WHERE m.user_id = t.user_id AND NOT m.muted) AS badge
                FROM push_tokens t
                JOIN sessions s ON s.id = t.session_id AND s.revoked_at IS NULL AND s.refresh_expires_at > $4
                JOIN users u ON u.id = t.user_id
                WHERE \(audience) AND t.user_id <> $1
                    AND NOT EXISTS (SELECT 1 FROM presence p WHERE p.user_id = t.user_id)
                    AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = t.user_id AND b.blocked_id = $1)
                        OR (b.blocker_id = $1 AND b.blocked_id = t.user_id))
                ORDER BY t.user_id, t.session_id
                """,
                [
                    .int(actor.rawValue), SQLValue(conversationId?.rawValue),
                    .text(Self.idList(users ?? [])), .int(now),
                ], logger: self.logger)
            let recipients = PushRecipient.merging(
                try rows.map { row in
                    PushRecipient(
                        userId: UserID(try row.int("user_id")),
                        tokens: [
                            PushToken(
                                platform: PushPlatform(rawValue: try row.text("platform")),
                                token: try row.text("token"),
                                appId: try row.text("app_id"), sandbox: try row.bool("sandbox"),
                                createdAt: try row.int("created_at"))
                        ],
                        settings: try NotificationSettings(stored: try row.optionalText("notifications")),
                        muted: try row.bool("conversation_muted"), badge: try row.int("badge"))
                })
            return PushAudience(actorName: actorName, groupName: groupName, recipients: recipients)
        }
    }
}
