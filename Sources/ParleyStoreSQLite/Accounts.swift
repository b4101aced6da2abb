import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func createUser(_ user: NewUser) async throws -> UserRecord {
        do {
            return try await write { db in
                try db.execute(
                    sql: """
                        INSERT INTO users (username, username_key, email, phone, password_hash, nickname, created_at,
                            nickname_folded)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        user.username, AccountRules.canonicalUsername(user.username),
                        user.email.map(AccountRules.canonicalEmail), user.phone, user.passwordHash, user.nickname,
                        user.createdAt, SearchText.fold(user.nickname),
                    ])
                return UserRecord(
                    id: UserID(db.lastInsertedRowID), username: user.username,
                    email: user.email.map(AccountRules.canonicalEmail), phone: user.phone,
                    passwordHash: user.passwordHash, nickname: user.nickname, signature: "", createdAt: user.createdAt)
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            let message = error.message ?? ""
            if message.contains("users.email") {
                throw ParleyError.emailTaken()
            } else if message.contains("users.phone") {
                throw ParleyError.phoneTaken()
            }
            throw ParleyError.usernameTaken()
        }
    }

    public func findUser(login: String) async throws -> UserRecord? {
        try await user(key: LoginKey(login: login))
    }

    public func user(id: UserID) async throws -> UserRecord? {
        try await pool.read { db in try Self.fetchUser(db, id: id) }
    }

    public func user(username: String) async throws -> UserRecord? {
        try await user(key: LoginKey(username: username))
    }

    public func user(key: LoginKey) async throws -> UserRecord? {
        try await pool.read { db in
            try Row.decodeFirst(
                db, sql: "SELECT * FROM users WHERE \(key.column) = ?", arguments: [key.value], UserRecord.init(row:))
        }
    }

    public func updateProfile(userId: UserID, _ update: ProfileUpdate, at now: Int64) async throws -> UserRecord {
        try await write { db in
            guard let user = try Self.fetchUser(db, id: userId)?.updated(by: update) else {
                throw ParleyError(.userNotFound, "No such user.")
            }
            try db.execute(
                sql: """
                    UPDATE users SET nickname = ?, signature = ?, avatar = ?, gender = ?, birthday = ?, region = ?,
                        nickname_folded = ?
                    WHERE id = ?
                    """,
                arguments: [
                    user.nickname, user.signature, user.avatar, user.gender?.rawValue, user.birthday, user.region,
                    SearchText.fold(user.nickname), userId.rawValue,
                ])
            try self.announce(db, [Announcement(to: [userId], ProfileUpdated(account: user.account).body)], at: now)
            try self.announceProfile(db, of: user.user, at: now)
            return user
        }
    }

    public func changePassword(of userId: UserID, to hash: String, keeping session: SessionID, at now: Int64)
        async throws -> Int
    {
        try await write { db in
            try db.execute(
                sql: "UPDATE users SET password_hash = ? WHERE id = ?", arguments: [hash, userId.rawValue])
            guard db.changesCount == 1 else { throw ParleyError(.userNotFound, "No such user.") }
            let revoked = try Int64.fetchAll(
                db,
                sql: """
                    UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id != ? AND revoked_at IS NULL
                    RETURNING id
                    """, arguments: [now, userId.rawValue, session.rawValue])
            for id in revoked { self.publishAfterCommit(db, .sessionRevoked(SessionID(id))) }
            return revoked.count
        }
    }

    public func deleteAccount(_ userId: UserID, at now: Int64) async throws -> Bool {
        try await write { db in
            let name = DeletedAccount.username(of: userId)
            try db.execute(
                sql: """
                    UPDATE users SET username = ?, username_key = ?, email = NULL, phone = NULL, password_hash = ?,
                        nickname = ?, nickname_folded = ?, signature = '', avatar = NULL, gender = NULL,
                        birthday = NULL, region = NULL, find_by_username = 'nobody', find_by_email = 'nobody',
                        find_by_phone = 'nobody', find_by_nickname = 'nobody', add_me = 'nobody',
                        message_from = 'friends', presence = 'nobody', email_verified_at = NULL,
                        phone_verified_at = NULL, deleted_at = ?
                    WHERE id = ? AND deleted_at IS NULL
                    """,
                arguments: [
                    name, name, DeletedAccount.passwordHash, DeletedAccount.nickname,
                    SearchText.fold(DeletedAccount.nickname), now, userId.rawValue,
                ])
            guard db.changesCount == 1 else { return false }
            let revoked = try Int64.fetchAll(
                db, sql: "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL RETURNING id",
                arguments: [now, userId.rawValue])
            for id in revoked { self.publishAfterCommit(db, .sessionRevoked(SessionID(id))) }
            for table in DeletedAccount.droppedTables {
                try db.execute(sql: "DELETE FROM \(table) WHERE user_id = ?", arguments: [userId.rawValue])
            }
            return true
        }
    }

    public func updatePrivacy(userId: UserID, _ update: UpdatePrivacyRequest, at now: Int64) async throws
        -> UserRecord
    {
        try await write { db in
            guard var user = try Self.fetchUser(db, id: userId) else {
                throw ParleyError(.userNotFound, "No such user.")
            }
            user.privacy = user.privacy.updated(by: update)
            try db.execute(
                sql: """
                    UPDATE users SET find_by_username = ?, find_by_email = ?, find_by_phone = ?, find_by_nickname = ?,
                        add_me = ?, message_from = ?, presence = ?
                    WHERE id = ?
                    """,
                arguments: [
                    user.privacy.findByUsername.rawValue, user.privacy.findByEmail.rawValue,
                    user.privacy.findByPhone.rawValue, user.privacy.findByNickname.rawValue,
                    user.privacy.addMe.rawValue, user.privacy.messageFrom.rawValue, user.privacy.presence.rawValue,
                    userId.rawValue,
                ])
            try self.announce(db, [Announcement(to: [userId], ProfileUpdated(account: user.account).body)], at: now)
            return user
        }
    }

    public func searchUsers(nickname query: String, for seeker: UserID, offset: Int, limit: Int) async throws
        -> [UserRecord]
    {
        let folded = SearchText.fold(query)
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM users
                    WHERE find_by_nickname = 'everyone' AND id <> ?1 AND instr(nickname_folded, ?2) > 0
                        AND NOT EXISTS (
                            SELECT 1 FROM blocks
                            WHERE (blocker_id = users.id AND blocked_id = ?1) OR (blocker_id = ?1 AND blocked_id = users.id))
                    ORDER BY nickname_folded = ?2 DESC, substr(nickname_folded, 1, length(?2)) = ?2 DESC, id
                    LIMIT ?3 OFFSET ?4
                    """,
                arguments: [seeker.rawValue, folded, limit, offset]
            ).map(UserRecord.init(row:))
        }
    }

    static func fetchUser(_ db: Database, id: UserID) throws -> UserRecord? {
        try Row.decodeFirst(
            db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id.rawValue], UserRecord.init(row:))
    }

    /// Appends each announcement's event to its users' streams (seqs assigned here) and
    /// publishes them after the commit. Each announcement's event is encoded once
    /// (``UserEventTemplate``), and all its users' seqs move in one statement.
    func announce(_ db: Database, _ announcements: [Announcement], at now: Int64) throws {
        var events: [UserID: [String]] = [:]
        for announcement in announcements {
            for (user, text) in try append(db, UserEventTemplate(announcement.body, at: now), to: announcement.users) {
                events[user, default: []].append(text)
            }
        }
        publishAfterCommit(db, .events(events))
    }

    /// Appends one event to each of `users`' streams (an ``Announcement``'s users, each once);
    /// answers the text stored for each.
    private func append(_ db: Database, _ template: UserEventTemplate, to users: [UserID]) throws
        -> [(UserID, String)]
    {
        let advance = try db.cachedStatement(
            sql: """
                UPDATE users SET event_seq = event_seq + 1 WHERE id IN (SELECT value FROM json_each(?))
                RETURNING id, event_seq
                """)
        let ids = "[" + users.map { String($0.rawValue) }.joined(separator: ",") + "]"
        var seqs: [Int64: Int64] = [:]
        for row in try Row.fetchAll(advance, arguments: [ids]) {
            let id: Int64 = row[0]
            seqs[id] = row[1]
        }
        let insert = try db.cachedStatement(
            sql: "INSERT INTO user_events (user_id, seq, body, message_id) VALUES (?, ?, ?, ?)")
        let messageId = template.body.updatedMessageId?.rawValue
        var appended: [(UserID, String)] = []
        for user in users {
            guard let seq = seqs[user.rawValue] else {
                throw ParleyError(.userNotFound, "User \(user) does not exist.")
            }
            let text = try template.json(seq: seq)
            try insert.execute(arguments: [user.rawValue, seq, text, messageId])
            appended.append((user, text))
        }
        return appended
    }
}
