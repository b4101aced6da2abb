import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func appendMessage(_ new: NewMessage) async throws -> AppendResult {
        try await groupCommit.write(to: self) { db in try self.append(db, new) }
    }

    /// Appends one message inside the current transaction (in a savepoint of its own, from
    /// ``GroupCommit``, which publishes its changes only if the savepoint is kept).
    func append(_ db: Database, _ new: NewMessage) throws -> AppendResult {
        // The append path runs per message, so its statements are prepared once per connection.
        let originalId = try db.first(
            "SELECT id FROM messages WHERE sender_id = ? AND client_msg_id = ?",
            [new.senderId.rawValue, new.clientMsgId]
        ) { columns in try columns[0] as Int64 }
        if let originalId, let original = try Self.message(db, MessageID(originalId)) {
            return try SendRules.retry(
                of: original, aimedAt: new.target,
                directConversation: try SendRules.directKeyToCheck(retrying: original, aimedAt: new.target).flatMap {
                    try Self.conversationID(db, directKey: $0)
                })
        }
        let conversationId: ConversationID
        // A conversation opened just now was opened after the same check a send makes.
        var peerChecked = false
        switch new.target {
        case .conversation(let id): conversationId = id
        case .directWith(let peerId):
            (conversationId, peerChecked) = try directConversation(
                db, between: new.senderId, and: peerId, at: new.sentAt)
        }
        guard
            let sender = try db.first(
                """
                SELECT m.role, m.muted_until, c.kind, c.mute_all, c.dissolved_at, c.members_version,
                    c.everyone_may_mention_all, c.direct_key
                FROM members m JOIN conversations c ON c.id = m.conversation_id
                WHERE m.conversation_id = ? AND m.user_id = ?
                """, [conversationId.rawValue, new.senderId.rawValue],
                { columns in
                    (
                        role: MemberRole(rawValue: try columns[0]) ?? .member, mutedUntil: try columns[1] as Int64?,
                        kind: try columns[2] as String, muteAll: try columns[3] as Bool,
                        dissolvedAt: try columns[4] as Int64?, membersVersion: try columns[5] as Int64,
                        everyoneMayMentionAll: try columns[6] as Bool, directKey: try columns[7] as String?
                    )
                })
        else { throw ParleyError.notAMember(of: conversationId) }
        try GroupRules.checkCanSend(
            role: sender.role, mutedUntil: sender.mutedUntil, muteAll: sender.muteAll, dissolvedAt: sender.dissolvedAt,
            in: conversationId, at: new.sentAt)
        if !peerChecked, let key = sender.directKey, let peer = DirectKey.peer(in: key, of: new.senderId) {
            try checkCanMessage(db, from: new.senderId, to: peer)
        }
        let recipients = try members(db, of: conversationId, at: sender.membersVersion)
        let mentioned = try MessageRules.mentioned(
            new.mentions, by: new.senderId, role: sender.role, in: ConversationRules.kind(stored: sender.kind),
            everyoneMayMentionAll: sender.everyoneMayMentionAll, members: recipients)
        let quote = try new.replyTo.map { id in
            let target = try Self.message(db, id)
            // A target elsewhere is named only to someone who may read it there.
            let readable = target.map {
                $0.conversationId == conversationId
                    || $0.seq <= (try? Self.readableUpTo(db, $0.conversationId, for: new.senderId)) ?? 0
            }
            return try MessageRules.quote(
                of: target, readable: readable ?? false, replyingIn: conversationId, id: id)
        }
        let message = try insert(db, new, into: conversationId, recipients: recipients, quote: quote)
        for userId in mentioned {
            try db.run(
                "INSERT INTO mentions (conversation_id, user_id, seq, sender_id) VALUES (?, ?, ?, ?)",
                [conversationId.rawValue, userId.rawValue, message.seq, new.senderId.rawValue])
        }
        return AppendResult(message: message, duplicate: false, recipients: recipients)
    }

    /// Message `id` as stored, whoever may read it.
    static func message(_ db: Database, _ id: MessageID) throws -> Message? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM messages WHERE id = ?"), arguments: [id.rawValue])
            .map { try Message(row: $0) }
    }

    /// The members of a conversation at `version` (its `members_version`), from the cache
    /// when it has them; a list read here is cached once the transaction commits.
    func members(_ db: Database, of conversationId: ConversationID, at version: Int64) throws -> [UserID] {
        if let cached = memberCache.members(of: conversationId, at: version) { return cached }
        let members = try Self.memberList(db, conversationId)
        let cache = memberCache
        afterCommit(db) { cache.store(members, of: conversationId, at: version) }
        return members
    }

    /// Gives `new` the next seq of `conversationId`, stores it, moves the sender's read
    /// watermark to it (unless it is a system notice) and publishes it to `recipients` at the
    /// commit. No rule is checked.
    func insert(
        _ db: Database, _ new: NewMessage, into conversationId: ConversationID, recipients: [UserID],
        quote: MessageQuote? = nil
    ) throws -> Message {
        let version = try nextVersion(db)
        let seq = try db.first(
            """
            UPDATE conversations SET max_seq = max_seq + 1, version = ?, last_activity_at = ?
            WHERE id = ? RETURNING max_seq
            """, [version, new.sentAt, conversationId.rawValue]
        ) { columns in try columns[0] as Int64 }!
        try db.run(
            """
            INSERT INTO messages (conversation_id, seq, sender_id, client_msg_id, kind, content, sent_at,
                reply_to_id, quote, forwarded)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                conversationId.rawValue, seq, new.senderId.rawValue, new.clientMsgId, new.kind.rawValue,
                new.contentJSON, new.sentAt, new.replyTo?.rawValue, try quote.map(JSONText.encode), new.forwarded,
            ])
        let message = Message(
            id: MessageID(db.lastInsertedRowID), conversationId: conversationId, seq: seq, senderId: new.senderId,
            clientMsgId: new.clientMsgId, kind: new.kind, content: new.content, sentAt: new.sentAt, quote: quote,
            forwarded: new.forwarded ? true : nil)
        if let folded = new.searchText { try Self.indexNew(db, message.id, folded: folded) }
        if !new.fileIds.isEmpty { try Self.referenceFiles(db, new.fileIds, from: message.id) }
        // Sending implies having read everything before it; a notice of what someone did does not.
        if new.kind != .system {
            try db.run(
                "UPDATE members SET read_seq = ?, version = ? WHERE conversation_id = ? AND user_id = ?",
                [seq, version, conversationId.rawValue, new.senderId.rawValue])
        }
        publishAfterCommit(db, .message(message, recipients: recipients, origin: new.origin))
        return message
    }

    public func history(of conversationId: ConversationID, for userId: UserID, query: HistoryQuery) async throws
        -> HistoryPage
    {
        let window = HistoryWindow(query)
        return try await pool.read { db in
            let access = try Row.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM members WHERE conversation_id = ?1 AND user_id = ?2) AS member,
                        (SELECT cleared_seq FROM members WHERE conversation_id = ?1 AND user_id = ?2) AS cleared,
                        (SELECT read_up_to FROM former_members WHERE conversation_id = ?1 AND user_id = ?2) AS former,
                        EXISTS (SELECT 1 FROM conversations WHERE id = ?1) AS known
                    """,
                arguments: [conversationId.rawValue, userId.rawValue])!
            var conditions = ["conversation_id = ?"]
            var arguments: StatementArguments = [conversationId.rawValue]
            if let upTo = try ConversationRules.readableUpTo(
                conversationId, isMember: access["member"], formerReadUpTo: access["former"], exists: access["known"])
            {
                conditions.append("seq <= ?")
                arguments += [upTo]
            }
            if let before = window.before {
                conditions.append("seq < ?")
                arguments += [before]
            }
            if let after = window.after {
                conditions.append("seq > ?")
                arguments += [after]
            }
            let clearedUpTo: Int64? = access["cleared"]
            if let clearedUpTo {
                conditions.append("seq > ?")
                arguments += [clearedUpTo]
            }
            // Few statements (the conditions are a fixed set), so they are cached.
            let messages = try Row.decodeAll(
                db,
                sql: """
                    SELECT *, EXISTS (SELECT 1 FROM deleted_messages d
                        WHERE d.user_id = ? AND d.conversation_id = messages.conversation_id AND d.seq = messages.seq
                    ) AS deleted
                    FROM messages WHERE \(conditions.joined(separator: " AND "))
                    ORDER BY seq \(window.newestFirst ? "DESC" : "ASC") LIMIT ?
                    """,
                arguments: [userId.rawValue] + arguments + [window.fetchLimit],
                layout: { (message: Message.Layout($0), deleted: $0.column("deleted")) }
            ) { row, layout in
                MessageRules.seen(
                    try Message(row: row, layout: layout.message), deletedForViewer: row[layout.deleted],
                    clearedUpTo: clearedUpTo)
            }
            return window.page(messages.compactMap { $0 })
        }
    }

    public func markRead(_ conversationId: ConversationID, by userId: UserID, upTo seq: Int64, at now: Int64)
        async throws -> ReadReceipt?
    {
        try await groupCommit.write(to: self) { db in
            // The reader's membership and the conversation both move: the other members' next
            // sync carries the new `othersReadSeq`.
            let watermark = try self.moveWatermark(db, "read_seq", of: userId, in: conversationId, to: seq) { _ in true
            }
            guard watermark.moved else { return nil }
            let target = watermark.seq
            try self.announce(
                db, [Announcement(to: [userId], ReadMoved(conversationId: conversationId, readSeq: target).body)],
                at: now)
            let receipt = ReadReceipt(conversationId: conversationId, userId: userId, seq: target)
            self.publishAfterCommit(
                db, .read(receipt, recipients: try self.members(db, of: conversationId, at: watermark.membersVersion)))
            return receipt
        }
    }

    /// Moves a member's watermark `column` (`read_seq` or `delivered_seq`) forward to `seq`
    /// (see ``ReadWatermark``). When `resyncs` says so for the conversation's kind, the
    /// member's and the conversation's versions move too, so the others' next sync carries it.
    /// Only a member may move theirs (`not_a_member` otherwise, also for a conversation that
    /// does not exist); the member list is not read for that.
    func moveWatermark(
        _ db: Database, _ column: String, of userId: UserID, in conversationId: ConversationID, to seq: Int64,
        resyncs: (ConversationKind) -> Bool
    ) throws -> (seq: Int64, moved: Bool, kind: ConversationKind, membersVersion: Int64) {
        guard
            let row = try Row.decodeFirst(
                db,
                sql: """
                    SELECT c.max_seq, c.kind, c.members_version, m.\(column) FROM conversations c
                    JOIN members m ON m.conversation_id = c.id AND m.user_id = ?
                    WHERE c.id = ?
                    """,
                arguments: [userId.rawValue, conversationId.rawValue],
                { row -> (maxSeq: Int64, kind: String, membersVersion: Int64, current: Int64) in
                    (row[0], row[1], row[2], row[3])
                })
        else { throw ParleyError.notAMember(of: conversationId) }
        let kind = ConversationRules.kind(stored: row.kind)
        let membersVersion = row.membersVersion
        guard let target = ReadWatermark.target(requested: seq, maxSeq: row.maxSeq, current: row.current)
        else { return (row.current, false, kind, membersVersion) }
        guard resyncs(kind) else {
            try db.run(
                "UPDATE members SET \(column) = ? WHERE conversation_id = ? AND user_id = ?",
                [target, conversationId.rawValue, userId.rawValue])
            return (target, true, kind, membersVersion)
        }
        let version = try nextVersion(db)
        try db.run(
            "UPDATE members SET \(column) = ?, version = ? WHERE conversation_id = ? AND user_id = ?",
            [target, version, conversationId.rawValue, userId.rawValue])
        try db.run("UPDATE conversations SET version = ? WHERE id = ?", [version, conversationId.rawValue])
        return (target, true, kind, membersVersion)
    }
}
