import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func appendMessage(_ new: NewMessage) async throws -> AppendResult {
        try await write { connection, notes in
            if let row = try await connection.rows(
                "SELECT * FROM messages WHERE sender_id = $1 AND client_msg_id = $2",
                [.int(new.senderId.rawValue), .text(new.clientMsgId)], logger: self.logger
            ).first {
                let original = try Message(row: row)
                try await self.checkRetryTarget(connection, original: original, target: new.target)
                return AppendResult(message: original, duplicate: true)
            }
            let conversationId: ConversationID
            switch new.target {
            case .conversation(let id): conversationId = id
            case .directWith(let peerId):
                conversationId = try await self.directConversation(
                    connection, notes, between: new.senderId, and: peerId, at: new.sentAt)
            }
            _ = try await self.memberIDs(connection, of: conversationId, requiring: new.senderId)
            let version = try await self.nextVersion(connection)
            let seq = try await connection.scalar(
                Int64.self,
                "UPDATE conversations SET max_seq = max_seq + 1, version = $1, last_activity_at = $2 WHERE id = $3 RETURNING max_seq",
                [.int(version), .int(new.sentAt), .int(conversationId.rawValue)], logger: self.logger)!
            let id = try await connection.scalar(
                Int64.self,
                """
                INSERT INTO messages (conversation_id, seq, sender_id, client_msg_id, kind, content, sent_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id
                """,
                [
                    .int(conversationId.rawValue), .int(seq), .int(new.senderId.rawValue), .text(new.clientMsgId),
                    .text(new.kind.rawValue), .text(new.contentJSON), .int(new.sentAt),
                ], logger: self.logger)!
            try await connection.rows(
                "UPDATE members SET read_seq = $1, version = $2 WHERE conversation_id = $3 AND user_id = $4",
                [.int(seq), .int(version), .int(conversationId.rawValue), .int(new.senderId.rawValue)],
                logger: self.logger)
            notes.add(ChangeNote(message: id, origin: new.origin.map { "\(self.nodeID)/\($0.rawValue)" }))
            let message = Message(
                id: MessageID(id), conversationId: conversationId, seq: seq, senderId: new.senderId,
                clientMsgId: new.clientMsgId,
                kind: new.kind, content: new.content, sentAt: new.sentAt)
            return AppendResult(message: message, duplicate: false)
        }
    }

    private func checkRetryTarget(_ connection: PostgresConnection, original: Message, target: MessageTarget)
        async throws
    {
        let sameTarget: Bool
        switch target {
        case .conversation(let id): sameTarget = id == original.conversationId
        case .directWith(let peerId):
            let key = DirectKey.make(original.senderId, peerId)
            sameTarget =
                try await connection.scalar(
                    Int64.self, "SELECT id FROM conversations WHERE direct_key = $1", [.text(key)], logger: logger)
                == original.conversationId.rawValue
        }
        guard sameTarget else {
            throw ParleyError.clientMessageIDReused(by: original)
        }
    }

    public func history(of conversationId: ConversationID, for userId: UserID, query: HistoryQuery) async throws
        -> HistoryPage
    {
        let limit = min(max(query.limit ?? Limits.defaultPageSize, 1), Limits.maxPageSize)
        return try await read { connection in
            _ = try await self.summary(connection, conversationId, for: userId)
            var conditions = ["conversation_id = $1"]
            var values: [SQLValue] = [.int(conversationId.rawValue)]
            if let before = query.before {
                values.append(.int(before))
                conditions.append("seq < $\(values.count)")
            }
            if let after = query.after {
                values.append(.int(after))
                conditions.append("seq > $\(values.count)")
            }
            let newestFirst = query.after == nil
            let rows = try await connection.rows(
                """
                SELECT * FROM messages WHERE \(conditions.joined(separator: " AND "))
                ORDER BY seq \(newestFirst ? "DESC" : "ASC") LIMIT \(limit + 1)
                """,
                values, logger: self.logger)
            var messages = try rows.prefix(limit).map { try Message(row: $0) }
            if newestFirst { messages.reverse() }
            return HistoryPage(messages: messages, hasMore: rows.count > limit)
        }
    }

    public func markRead(_ conversationId: ConversationID, by userId: UserID, upTo seq: Int64, at now: Int64)
        async throws -> ReadReceipt?
    {
        try await write { connection, notes in
            _ = try await self.memberIDs(connection, of: conversationId, requiring: userId)
            let row = try await connection.rows(
                """
                SELECT c.max_seq, m.read_seq FROM conversations c
                JOIN members m ON m.conversation_id = c.id AND m.user_id = $1 WHERE c.id = $2
                """,
                [.int(userId.rawValue), .int(conversationId.rawValue)], logger: self.logger)[0]
            let target = min(seq, try row.int("max_seq"))
            guard target > (try row.int("read_seq")) else { return nil }
            let version = try await self.nextVersion(connection)
            try await connection.rows(
                "UPDATE members SET read_seq = $1, version = $2 WHERE conversation_id = $3 AND user_id = $4",
                [.int(target), .int(version), .int(conversationId.rawValue), .int(userId.rawValue)], logger: self.logger
            )
            try await connection.rows(
                "UPDATE conversations SET version = $1 WHERE id = $2", [.int(version), .int(conversationId.rawValue)],
                logger: self.logger)
            let event = try await self.appendEvent(
                connection, to: userId,
                UserEvent(seq: 0, type: .readMoved, conversationId: conversationId, readSeq: target, at: now))
            notes.add(ChangeNote(events: [[userId.rawValue, event.seq]]))
            notes.add(ChangeNote(read: [conversationId.rawValue, userId.rawValue, target]))
            return ReadReceipt(conversationId: conversationId, userId: userId, seq: target)
        }
    }

    // MARK: Sync

    public func sync(userId: UserID, since cursor: SyncCursor?, limit: Int) async throws -> SyncBatch {
        try await read { connection in
            guard
                let userEventSeq = try await connection.scalar(
                    Int64.self, "SELECT event_seq FROM users WHERE id = $1", [.int(userId.rawValue)],
                    logger: self.logger)
            else { throw ParleyError(.userNotFound, "No such user.") }
            let currentVersion = try await connection.scalar(
                Int64.self, "SELECT value FROM counters WHERE name = 'change_version'", logger: self.logger)!
            let since = cursor ?? SyncCursor(eventSeq: userEventSeq, version: 0)
            let bodies = try await connection.rows(
                "SELECT body FROM user_events WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT \(limit + 1)",
                [.int(userId.rawValue), .int(since.eventSeq)], logger: self.logger
            ).map { try $0.text("body") }
            let events = try bodies.prefix(limit).map { try JSONText.decode(UserEvent.self, from: $0) }
            let rows = try await connection.rows(
                """
                SELECT c.id, GREATEST(c.version, m.version) AS change_version FROM members m
                JOIN conversations c ON c.id = m.conversation_id
                WHERE m.user_id = $1 AND (c.version > $2 OR m.version > $2)
                ORDER BY change_version LIMIT \(limit + 1)
                """,
                [.int(userId.rawValue), .int(since.version)], logger: self.logger)
            let page = Array(rows.prefix(limit))
            var conversations: [ConversationSummary] = []
            for row in page {
                conversations.append(try await self.summary(connection, ConversationID(try row.int("id")), for: userId))
            }
            let moreConversations = rows.count > limit
            let next = SyncCursor(
                eventSeq: events.last?.seq ?? since.eventSeq,
                version: moreConversations ? try page.last!.int("change_version") : currentVersion)
            return SyncBatch(
                conversations: conversations, events: events, cursor: next,
                hasMore: bodies.count > limit || moreConversations)
        }
    }

    // MARK: Fan-out

    /// Turns one NOTIFY into changes on this node's feed (called in notification order).
    func deliver(_ payload: String) async {
        guard let note = try? JSONText.decode(ChangeNote.self, from: payload) else { return }
        do {
            let changes = try await plain { connection in try await self.changes(for: note, connection) }
            for change in changes { self.changes.publish(change) }
        } catch {
            logger.error("Cannot load a notified change; clients will resync", metadata: ["error": "\(error)"])
            self.changes.publish(.resyncRequired)
        }
    }

    private func changes(for note: ChangeNote, _ connection: PostgresConnection) async throws -> [StoreChange] {
        var result: [StoreChange] = []
        if let id = note.message,
            let row = try await connection.rows("SELECT * FROM messages WHERE id = $1", [.int(id)], logger: logger)
                .first
        {
            let message = try Message(row: row)
            let recipients = try await memberList(connection, message.conversationId)
            var origin: ConnectionTag?
            if let parts = note.origin?.split(separator: "/"), parts.count == 2, parts[0] == nodeID,
                let tag = UInt64(parts[1])
            {
                origin = ConnectionTag(tag)
            }
            result.append(.message(message, recipients: recipients, origin: origin))
        }
        if let pairs = note.events {
            var events: [UserID: [UserEvent]] = [:]
            for pair in pairs where pair.count == 2 {
                if let body = try await connection.scalar(
                    String.self, "SELECT body FROM user_events WHERE user_id = $1 AND seq = $2",
                    [.int(pair[0]), .int(pair[1])], logger: logger)
                {
                    events[UserID(pair[0]), default: []].append(try JSONText.decode(UserEvent.self, from: body))
                }
            }
            result.append(.events(events))
        }
        if let read = note.read, read.count == 3 {
            let receipt = ReadReceipt(conversationId: ConversationID(read[0]), userId: UserID(read[1]), seq: read[2])
            result.append(.read(receipt, recipients: try await memberList(connection, receipt.conversationId)))
        }
        if let session = note.session { result.append(.sessionRevoked(SessionID(session))) }
        return result
    }

    func memberList(_ connection: PostgresConnection, _ id: ConversationID) async throws -> [UserID] {
        try await connection.rows(
            "SELECT user_id FROM members WHERE conversation_id = $1", [.int(id.rawValue)], logger: logger
        )
        .map { UserID(try $0.int("user_id")) }
    }
}

extension Message {
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: MessageID(try row.int("id")), conversationId: ConversationID(try row.int("conversation_id")),
            seq: try row.int("seq"),
            senderId: UserID(try row.int("sender_id")), clientMsgId: try row.text("client_msg_id"),
            kind: MessageKind(rawValue: try row.text("kind")),
            content: try JSONText.decode(JSONValue.self, from: try row.text("content")),
            sentAt: try row.int("sent_at"))
    }
}
