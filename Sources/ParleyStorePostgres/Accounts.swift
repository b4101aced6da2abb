import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func createUser(_ user: NewUser) async throws -> UserRecord {
        let email = user.email.map(AccountRules.canonicalEmail)
        let logger = self.logger
        let id = try await plain { connection in
            try await connection.scalar(
                Int64.self,
                """
                INSERT INTO users (username, username_key, email, phone, password_hash, nickname, created_at,
                    nickname_folded)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
                """,
                [
                    .text(user.username), .text(AccountRules.canonicalUsername(user.username)), SQLValue(email),
                    SQLValue(user.phone), .text(user.passwordHash), .text(user.nickname), .int(user.createdAt),
                    .text(SearchText.fold(user.nickname)),
                ], logger: logger)!
        }
        return UserRecord(
            id: UserID(id), username: user.username, email: email, phone: user.phone, passwordHash: user.passwordHash,
            nickname: user.nickname, signature: "", createdAt: user.createdAt)
    }

    public func findUser(login: String) async throws -> UserRecord? {
        try await user(key: LoginKey(login: login))
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await fetchUser("id", .int(id.rawValue))
    }

    public func user(username: String) async throws -> UserRecord? {
        let key = LoginKey(username: username)
        return try await fetchUser(key.column, .text(key.value))
    }

    public func user(key: LoginKey) async throws -> UserRecord? {
        try await fetchUser(key.column, .text(key.value))
    }

    private func fetchUser(_ column: String, _ value: SQLValue) async throws -> UserRecord? {
        let logger = self.logger
        return try await plain { connection in
            try await connection.rows("SELECT * FROM users WHERE \(column) = $1", [value], logger: logger).first.map(
                UserRecord.init(row:))
        }
    }

    public func updateProfile(userId: UserID, _ update: ProfileUpdate, at now: Int64) async throws -> UserRecord {
        try await write { connection, notes in
            guard
                let user = try await connection.rows(
                    "SELECT * FROM users WHERE id = $1 FOR UPDATE", [.int(userId.rawValue)], logger: self.logger
                ).first.map(UserRecord.init(row:))?.updated(by: update)
            else { throw ParleyError(.userNotFound, "No such user.") }
            try await connection.rows(
                """
                UPDATE users SET nickname = $1, signature = $2, avatar = $3, gender = $4, birthday = $5, region = $6,
                    nickname_folded = $8
                WHERE id = $7
                """,
                [
                    .text(user.nickname), .text(user.signature), SQLValue(user.avatar), SQLValue(user.gender?.rawValue),
                    SQLValue(user.birthday), SQLValue(user.region), .int(userId.rawValue),
                    .text(SearchText.fold(user.nickname)),
                ], logger: self.logger)
            try await self.announce(
                connection, notes, [Announcement(to: [userId], ProfileUpdated(account: user.account).body)], at: now)
            try await self.announceProfile(connection, notes, of: user.user, at: now)
            return user
        }
    }

    public func changePassword(of userId: UserID, to hash: String, keeping session: SessionID, at now: Int64)
        async throws -> Int
    {
        try await write { connection, notes in
            let updated = try await connection.rows(
                "UPDATE users SET password_hash = $1 WHERE id = $2 RETURNING id", [.text(hash), .int(userId.rawValue)],
                logger: self.logger)
            guard !updated.isEmpty else { throw ParleyError(.userNotFound, "No such user.") }
            let revoked = try await connection.rows(
                """
                UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND id != $3 AND revoked_at IS NULL RETURNING id
                """, [.int(now), .int(userId.rawValue), .int(session.rawValue)], logger: self.logger)
            for row in revoked { notes.add(ChangeNote(session: try row.int("id"))) }
            return revoked.count
        }
    }

    public func deleteAccount(_ userId: UserID, at now: Int64) async throws -> Bool {
        try await write { connection, notes in
            let name = DeletedAccount.username(of: userId)
            let deleted = try await connection.rows(
                """
                UPDATE users SET username = $1, username_key = $1, email = NULL, phone = NULL, password_hash = $2,
                    nickname = $3, nickname_folded = $4, signature = '', avatar = NULL, gender = NULL,
                    birthday = NULL, region = NULL, find_by_username = 'nobody', find_by_email = 'nobody',
                    find_by_phone = 'nobody', find_by_nickname = 'nobody', add_me = 'nobody',
                    message_from = 'friends', presence = 'nobody', email_verified_at = NULL,
                    phone_verified_at = NULL, deleted_at = $5
                WHERE id = $6 AND deleted_at IS NULL
                RETURNING id
                """,
                [
                    .text(name), .text(DeletedAccount.passwordHash), .text(DeletedAccount.nickname),
                    .text(SearchText.fold(DeletedAccount.nickname)), .int(now), .int(userId.rawValue),
                ], logger: self.logger)
            guard !deleted.isEmpty else { return false }
            let revoked = try await connection.rows(
                "UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL RETURNING id",
                [.int(now), .int(userId.rawValue)], logger: self.logger)
            for row in revoked { notes.add(ChangeNote(session: try row.int("id"))) }
            for table in DeletedAccount.droppedTables {
                try await connection.rows(
                    "DELETE FROM \(table) WHERE user_id = $1", [.int(userId.rawValue)], logger: self.logger)
            }
            return true
        }
    }

    public func updatePrivacy(userId: UserID, _ update: UpdatePrivacyRequest, at now: Int64) async throws
        -> UserRecord
    {
        try await write { connection, notes in
            guard
                var user = try await connection.rows(
                    "SELECT * FROM users WHERE id = $1 FOR UPDATE", [.int(userId.rawValue)], logger: self.logger
                ).first.map(UserRecord.init(row:))
            else { throw ParleyError(.userNotFound, "No such user.") }
            user.privacy = user.privacy.updated(by: update)
            try await connection.rows(
                """
                UPDATE users SET find_by_username = $1, find_by_email = $2, find_by_phone = $3, find_by_nickname = $4,
                    add_me = $6, message_from = $7, presence = $8
                WHERE id = $5
                """,
                [
                    .text(user.privacy.findByUsername.rawValue), .text(user.privacy.findByEmail.rawValue),
                    .text(user.privacy.findByPhone.rawValue), .text(user.privacy.findByNickname.rawValue),
                    .int(userId.rawValue), .text(user.privacy.addMe.rawValue),
                    .text(user.privacy.messageFrom.rawValue), .text(user.privacy.presence.rawValue),
                ], logger: self.logger)
            try await self.announce(
                connection, notes, [Announcement(to: [userId], ProfileUpdated(account: user.account).body)], at: now)
            return user
        }
    }

    public func searchUsers(nickname query: String, for seeker: UserID, offset: Int, limit: Int) async throws
        -> [UserRecord]
    {
        try await plain { connection in
            try await connection.rows(
                """
                SELECT * FROM users
                WHERE find_by_nickname = 'everyone' AND id <> $2 AND strpos(nickname_folded, $1) > 0
                    AND NOT EXISTS (
                        SELECT 1 FROM blocks
                        WHERE (blocker_id = users.id AND blocked_id = $2) OR (blocker_id = $2 AND blocked_id = users.id))
                ORDER BY nickname_folded = $1 DESC, starts_with(nickname_folded, $1) DESC, id
                LIMIT $3 OFFSET $4
                """,
                [.text(SearchText.fold(query)), .int(seeker.rawValue), .int(Int64(limit)), .int(Int64(offset))],
                logger: self.logger
            ).map(UserRecord.init(row:))
        }
    }

    /// Appends each announcement's event to its users' streams (seqs assigned here) and
    /// notes them for NOTIFY.
    func announce(
        _ connection: PostgresConnection, _ notes: Notifications, _ announcements: [Announcement], at now: Int64
    )
        async throws
    {
        var pairs: [[Int64]] = []
        for announcement in announcements {
            let users = announcement.users
            let template = try UserEventTemplate(announcement.body, at: now)
            guard let parts = template.parts else {
                for user in users {
                    let event = try await appendEvent(connection, to: user, announcement.body, at: now)
                    pairs.append([user.rawValue, event.seq])
                }
                continue
            }
            // One statement for all the users: their seqs move, and each gets the event's
            // text with its own seq.
            let rows = try await connection.rows(
                """
                WITH moved AS (
                    UPDATE users SET event_seq = event_seq + 1 WHERE id = ANY(string_to_array($1, ',')::bigint[])
                    RETURNING id, event_seq)
                INSERT INTO user_events (user_id, seq, body, message_id)
                SELECT id, event_seq, $2 || event_seq::text || $3, $4 FROM moved
                RETURNING user_id, seq
                """,
                [
                    .text(Self.idList(users)), .text(parts.before),
                    .text(parts.after), SQLValue(announcement.body.updatedMessageId?.rawValue),
                ], logger: logger)
            guard rows.count == users.count else {
                let found = Set(try rows.map { UserID(try $0.int("user_id")) })
                let missing = users.first { !found.contains($0) }.map { "\($0)" } ?? "?"
                throw ParleyError(.userNotFound, "User \(missing) does not exist.")
            }
            for row in rows { pairs.append([try row.int("user_id"), try row.int("seq")]) }
        }
        for chunk in stride(from: 0, to: pairs.count, by: 200) {
            notes.add(ChangeNote(events: Array(pairs[chunk..<min(chunk + 200, pairs.count)])))
        }
    }

    private func appendEvent(_ connection: PostgresConnection, to userId: UserID, _ body: UserEventBody, at now: Int64)
        async throws -> UserEvent
    {
        guard
            let seq = try await connection.scalar(
                Int64.self, "UPDATE users SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq",
                [.int(userId.rawValue)], logger: logger)
        else { throw ParleyError(.userNotFound, "User \(userId) does not exist.") }
        let event = UserEvent(seq: seq, at: now, body)
        try await connection.rows(
            "INSERT INTO user_events (user_id, seq, body, message_id) VALUES ($1, $2, $3, $4)",
            [
                .int(userId.rawValue), .int(seq), .text(try JSONText.encode(event)),
                SQLValue(body.updatedMessageId?.rawValue),
            ],
            logger: logger)
        return event
    }
}

extension UserRecord {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: UserID(try row.int("id")), username: try row.text("username"), email: try row.optionalText("email"),
            phone: try row.optionalText("phone"), passwordHash: try row.text("password_hash"),
            nickname: try row.text("nickname"), signature: try row.text("signature"),
            avatar: try row.optionalText("avatar"), gender: try row.optionalText("gender").map(Gender.init(rawValue:)),
            birthday: try row.optionalText("birthday"), region: try row.optionalText("region"),
            privacy: PrivacySettings(
                findByUsername: Discoverability(rawValue: try row.text("find_by_username")),
                findByEmail: Discoverability(rawValue: try row.text("find_by_email")),
                findByPhone: Discoverability(rawValue: try row.text("find_by_phone")),
                findByNickname: Discoverability(rawValue: try row.text("find_by_nickname")),
                addMe: AddPolicy(rawValue: try row.text("add_me")),
                messageFrom: MessagePolicy(rawValue: try row.text("message_from")),
                presence: PresenceVisibility(rawValue: try row.text("presence"))),
            createdAt: try row.int("created_at"),
            emailVerifiedAt: row.contains("email_verified_at") ? try row.optionalInt("email_verified_at") : nil,
            phoneVerifiedAt: row.contains("phone_verified_at") ? try row.optionalInt("phone_verified_at") : nil,
            deletedAt: row.contains("deleted_at") ? try row.optionalInt("deleted_at") : nil)
    }
}
