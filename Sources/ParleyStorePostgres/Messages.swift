import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    /// A send shares the write lock with other sends and marks: they meet on the
    /// conversation's row (a first message also on its two users' rows, for their events).
    /// Two that open the same direct conversation at once collide on its key, and the second
    /// runs again and finds the first's. A send into an existing conversation reads what it
    /// checks in one statement (``sendingRights(_:_:in:)``).
    public func appendMessage(_ new: NewMessage) async throws -> AppendResult {
        try await write(shared: true) { connection, notes in
            let conversationId: ConversationID
            switch new.target {
            case .conversation(let id): conversationId = id
            case .directWith(let peerId):
                if let retried = try await self.retry(connection, of: new) { return retried }
                conversationId = try await self.directConversation(
                    connection, notes, between: new.senderId, and: peerId, at: new.sentAt)
            }
            let sender = try await self.sendingRights(connection, new, in: conversationId)
            if try sender.bool("retried"), let retried = try await self.retry(connection, of: new) { return retried }
            guard let storedRole = try sender.optionalText("role") else {
                throw ParleyError.notAMember(of: conversationId)
            }
            let role = MemberRole(rawValue: storedRole) ?? .member
            try GroupRules.checkCanSend(
                role: role, mutedUntil: try sender.optionalInt("muted_until"), muteAll: try sender.bool("mute_all"),
                dissolvedAt: try sender.optionalInt("dissolved_at"), in: conversationId, at: new.sentAt)
            if try sender.optionalInt("peer_id") != nil { try Self.checkMessagePolicy(in: sender) }
            // Under the write lock, shared or not, no membership changes: a list read now is
            // the members at this version.
            let version = try sender.int("members_version")
            var recipients = self.memberCache.members(of: conversationId, at: version) ?? []
            if recipients.isEmpty {
                recipients = try await self.memberList(connection, conversationId)
                self.memberCache.store(recipients, of: conversationId, at: version)
            }
            let mentioned =
                new.mentions.isEmpty
                ? []
                : try MessageRules.mentioned(
                    new.mentions, by: new.senderId, role: role,
                    in: ConversationRules.kind(stored: try sender.text("kind")),
                    everyoneMayMentionAll: try sender.bool("everyone_may_mention_all"), members: recipients)
            var quote: MessageQuote?
            if let replyTo = new.replyTo {
                let target = try await self.message(connection, replyTo)
                // A target elsewhere is named only to someone who may read it there.
                var readable = target?.conversationId == conversationId
                if let target, !readable {
                    let upTo = try? await self.readableUpTo(connection, target.conversationId, for: new.senderId)
                    readable = target.seq <= upTo ?? 0
                }
                quote = try MessageRules.quote(of: target, readable: readable, replyingIn: conversationId, id: replyTo)
            }
            let message = try await self.insert(
                connection, notes, new, into: conversationId, quote: quote, mentioning: mentioned)
            return AppendResult(message: message, duplicate: false, recipients: recipients)
        }
    }

    /// The answer to `new` if it repeats a stored send (the same sender and client id), else nil.
    private func retry(_ connection: PostgresConnection, of new: NewMessage) async throws -> AppendResult? {
        guard
            let row = try await connection.rows(
                "SELECT * FROM messages WHERE sender_id = $1 AND client_msg_id = $2",
                [.int(new.senderId.rawValue), .text(new.clientMsgId)], logger: logger
            ).first
        else { return nil }
        let original = try Message(row: row)
        var directConversation: ConversationID?
        if let key = SendRules.directKeyToCheck(retrying: original, aimedAt: new.target) {
            directConversation = try await conversationID(connection, directKey: key)
        }
        return try SendRules.retry(of: original, aimedAt: new.target, directConversation: directConversation)
    }

    /// What a send into `conversationId` checks, in one round trip: whether `new` was sent
    /// before (`retried`), the sender's member row and its conversation (null columns when
    /// the sender is not a member), and in a direct conversation the peer's
    /// ``messagePolicyColumns(sender:)`` (`peer_id` null when there is no peer).
    private func sendingRights(_ connection: PostgresConnection, _ new: NewMessage, in conversationId: ConversationID)
        async throws -> PostgresRandomAccessRow
    {
        try await connection.rows(
            """
            SELECT EXISTS (SELECT 1 FROM messages WHERE sender_id = $2 AND client_msg_id = $3) AS retried,
                m.role, m.muted_until, c.kind, c.mute_all, c.dissolved_at, c.everyone_may_mention_all,
                c.members_version, p.id AS peer_id, \(Self.messagePolicyColumns(sender: "$2"))
            FROM (SELECT 1) AS one
            LEFT JOIN members m ON m.conversation_id = $1 AND m.user_id = $2
            LEFT JOIN conversations c ON c.id = m.conversation_id
            LEFT JOIN users p ON p.id = \(Self.directPeer(key: "c.direct_key", of: "$2"))
            """,
            [.int(conversationId.rawValue), .int(new.senderId.rawValue), .text(new.clientMsgId)], logger: logger
        ).first!
    }

    /// Message `id` as stored, whoever may read it.
    func message(_ connection: PostgresConnection, _ id: MessageID) async throws -> Message? {
        try await connection.rows("SELECT * FROM messages WHERE id = $1", [.int(id.rawValue)], logger: logger).first
            .map { try Message(row: $0) }
    }

    /// Gives `new` the next seq of `conversationId`, stores it with its `mentioning` (user 0
    /// for everyone), moves the sender's read watermark to it (unless it is a system notice)
    /// and notifies every node, which delivers it to the members then (and to `alsoTo`). No
    /// rule is checked.
    func insert(
        _ connection: PostgresConnection, _ notes: Notifications, _ new: NewMessage,
        into conversationId: ConversationID, alsoTo extraRecipients: [UserID] = [], quote: MessageQuote? = nil,
        mentioning: [UserID] = []
    ) async throws -> Message {
        let origin = new.origin.map { "\(nodeID)/\($0.rawValue)" }
        let alsoTo = extraRecipients.isEmpty ? nil : extraRecipients.map(\.rawValue)
        // Its id and seq come from the statement.
        var message = Message(
            id: MessageID(0), conversationId: conversationId, seq: 0, senderId: new.senderId,
            clientMsgId: new.clientMsgId, kind: new.kind, content: new.content, sentAt: new.sentAt, quote: quote,
            forwarded: new.forwarded ? true : nil)
        // With no earlier note waiting, this statement sends the message's note itself (one
        // round trip fewer); after one, the note queues behind it, keeping their order.
        let template =
            notes.isEmpty
            ? ChangeNote.messageTemplate(message, contentJSON: new.contentJSON, origin: origin, alsoTo: alsoTo) : nil
        // One round trip, mentions included. The version is drawn as the conversation's row
        // is updated, so after any send that held the row before; the sender's member row is
        // updated only after it (it reads `position`), keeping the lock order.
        guard
            let stored = try await connection.rows(
                """
                WITH position AS (
                    UPDATE conversations SET max_seq = max_seq + 1, version = nextval('change_versions'),
                        last_activity_at = $6
                    WHERE id = $1
                    RETURNING max_seq, members_version, version
                ), stored AS (
                    INSERT INTO messages (conversation_id, seq, sender_id, client_msg_id, kind, content, sent_at,
                        reply_to_id, quote, forwarded)
                    SELECT $1, max_seq, $2, $3, $4, $5, $6, $7::bigint, $8::text, $9 FROM position RETURNING id
                ), indexed AS (
                    INSERT INTO message_text (message_id, folded) SELECT id, $10::text FROM stored WHERE $10::text IS NOT NULL
                ), mentioned AS (
                    INSERT INTO mentions (conversation_id, user_id, seq, sender_id)
                    SELECT $1, unnest(string_to_array($13, ',')::bigint[]), max_seq, $2 FROM position
                ), read AS (
                    -- Sending implies having read everything before it; a notice of what someone did does not.
                    UPDATE members SET read_seq = position.max_seq, version = position.version FROM position
                    WHERE conversation_id = $1 AND user_id = $2 AND $4 <> 'system'
                )
                SELECT stored.id, position.max_seq, position.members_version,
                    (SELECT pg_notify($11, replace(replace(replace($12::text,
                        \(ChangeNote.markerSQL("id")), stored.id::text),
                        \(ChangeNote.markerSQL("seq")), position.max_seq::text),
                        \(ChangeNote.markerSQL("version")), position.members_version::text)) WHERE $12::text IS NOT NULL
                    ) AS notified
                FROM stored, position
                """,
                [
                    .int(conversationId.rawValue), .int(new.senderId.rawValue), .text(new.clientMsgId),
                    .text(new.kind.rawValue), .text(new.contentJSON), .int(new.sentAt),
                    SQLValue(new.replyTo?.rawValue), SQLValue(try quote.map(JSONText.encode)), .bool(new.forwarded),
                    SQLValue(new.searchText), .text(channel), SQLValue(template),
                    .text(Self.idList(mentioning)),
                ], logger: logger
            ).first
        else { throw ParleyError(.conversationNotFound, "Conversation \(conversationId) does not exist.") }
        message.id = MessageID(try stored.int("id"))
        message.seq = try stored.int("max_seq")
        if !new.fileIds.isEmpty { try await referenceFiles(connection, new.fileIds, from: message.id) }
        if template == nil {
            notes.add(
                ChangeNote(
                    newMessage: message, contentJSON: new.contentJSON, origin: origin,
                    membersVersion: try stored.int("members_version"), alsoTo: alsoTo))
        }
        ownMessages.keep(message)
        return message
    }

    public func history(of conversationId: ConversationID, for userId: UserID, query: HistoryQuery) async throws
        -> HistoryPage
    {
        let window = HistoryWindow(query)
        return try await read { connection in
            let access = try await connection.rows(
                """
                SELECT EXISTS (SELECT 1 FROM members WHERE conversation_id = $1 AND user_id = $2) AS member,
                    (SELECT cleared_seq FROM members WHERE conversation_id = $1 AND user_id = $2) AS cleared,
                    (SELECT read_up_to FROM former_members WHERE conversation_id = $1 AND user_id = $2) AS former,
                    EXISTS (SELECT 1 FROM conversations WHERE id = $1) AS known
                """,
                [.int(conversationId.rawValue), .int(userId.rawValue)], logger: self.logger
            ).first!
            var conditions = ["conversation_id = $1"]
            var values: [SQLValue] = [.int(conversationId.rawValue), .int(userId.rawValue)]
            if let upTo = try ConversationRules.readableUpTo(
                conversationId, isMember: try access.bool("member"), formerReadUpTo: try access.optionalInt("former"),
                exists: try access.bool("known"))
            {
                values.append(.int(upTo))
                conditions.append("seq <= $\(values.count)")
            }
            if let before = window.before {
                values.append(.int(before))
                conditions.append("seq < $\(values.count)")
            }
            if let after = window.after {
                values.append(.int(after))
                conditions.append("seq > $\(values.count)")
            }
            let clearedUpTo = try access.optionalInt("cleared")
            if let clearedUpTo {
                values.append(.int(clearedUpTo))
                conditions.append("seq > $\(values.count)")
            }
            values.append(.int(Int64(window.fetchLimit)))
            let rows = try await connection.rows(
                """
                SELECT *, EXISTS (SELECT 1 FROM deleted_messages d
                    WHERE d.user_id = $2 AND d.conversation_id = messages.conversation_id AND d.seq = messages.seq
                ) AS deleted
                FROM messages WHERE \(conditions.joined(separator: " AND "))
                ORDER BY seq \(window.newestFirst ? "DESC" : "ASC") LIMIT $\(values.count)
                """,
                values, logger: self.logger)
            let decoded = try rows.decodeAll(layout: { (message: Message.Layout($0), deleted: $0.column("deleted")) }) {
                MessageRules.seen(
                    try Message(row: $0, layout: $1.message), deletedForViewer: try $0.bool($1.deleted),
                    clearedUpTo: clearedUpTo)
            }
            return window.page(decoded.compactMap { $0 })
        }
    }

    public func markRead(_ conversationId: ConversationID, by userId: UserID, upTo seq: Int64, at now: Int64)
        async throws -> ReadReceipt?
    {
        try await write(shared: true) { connection, notes in
            let watermark = try await self.moveWatermark(
                connection, "read_seq", of: userId, in: conversationId, to: seq
            ) { _ in true }
            guard watermark.moved else { return nil }
            let target = watermark.seq
            try await self.announce(
                connection, notes,
                [Announcement(to: [userId], ReadMoved(conversationId: conversationId, readSeq: target).body)], at: now)
            notes.add(
                ChangeNote(
                    membersVersion: watermark.membersVersion, read: [conversationId.rawValue, userId.rawValue, target]))
            return ReadReceipt(conversationId: conversationId, userId: userId, seq: target)
        }
    }
}

extension PostgresStore {
    /// Moves a member's watermark `column` (`read_seq` or `delivered_seq`) forward to `seq`
    /// (see ``ReadWatermark``). When `resyncs` says so for the conversation's kind, the
    /// member's and the conversation's versions move too, so the others' next sync carries it.
    ///
    /// It runs beside sends (a shared write), so it locks rows in their order: the
    /// conversation's first when it will stamp it, then the member's. A mark that stamps
    /// nothing (a delivery mark in a group) locks only the member's row, so that it never
    /// waits for a send. The watermark is read under the lock, in the statement that takes it,
    /// so two marks at once never move it back. Only a member may move theirs (`not_a_member`
    /// otherwise, also for a conversation that does not exist); the member list is not read
    /// for that. It answers the conversation's `members_version` too: for a mark that stamps,
    /// read under the conversation's lock, so it is the version of the members the mark's
    /// receipt is for.
    func moveWatermark(
        _ connection: PostgresConnection, _ column: String, of userId: UserID, in conversationId: ConversationID,
        to seq: Int64, resyncs: (ConversationKind) -> Bool
    ) async throws -> (seq: Int64, moved: Bool, kind: ConversationKind, membersVersion: Int64) {
        // First as a mark that stamps nothing, where its kind allows that (it finds no row
        // otherwise); then as one that stamps.
        let quietKinds = ConversationKind.allCases.filter { !resyncs($0) }
        var found: PostgresRandomAccessRow?
        if !quietKinds.isEmpty {
            found = try await lockWatermark(connection, column, of: userId, in: conversationId, kinds: quietKinds)
        }
        if found == nil {
            found = try await lockWatermark(connection, column, of: userId, in: conversationId, kinds: nil)
        }
        guard let row = found else { throw ParleyError.notAMember(of: conversationId) }
        let kind = ConversationRules.kind(stored: try row.text("kind"))
        let current = try row.int("current")
        let membersVersion = try row.int("members_version")
        guard let target = ReadWatermark.target(requested: seq, maxSeq: try row.int("max_seq"), current: current)
        else { return (current, false, kind, membersVersion) }
        guard resyncs(kind) else {
            try await connection.rows(
                "UPDATE members SET \(column) = $1 WHERE conversation_id = $2 AND user_id = $3",
                [.int(target), .int(conversationId.rawValue), .int(userId.rawValue)], logger: logger)
            return (target, true, kind, membersVersion)
        }
        // One statement: both rows are locked already, so the order of their updates is free.
        try await connection.rows(
            """
            WITH drawn AS (SELECT nextval('change_versions') AS version), member AS (
                UPDATE members SET \(column) = $1, version = drawn.version FROM drawn
                WHERE conversation_id = $2 AND user_id = $3
            )
            UPDATE conversations SET version = drawn.version FROM drawn WHERE id = $2
            """,
            [.int(target), .int(conversationId.rawValue), .int(userId.rawValue)], logger: logger)
        return (target, true, kind, membersVersion)
    }

    /// Reads the conversation's kind, `max_seq` and `members_version` and the member's
    /// watermark `column` (as `current`), in one statement that locks what the mark needs:
    /// with `kinds`, only the member's row, and only in a conversation of one of those kinds;
    /// without, the conversation's row and then the member's (PostgreSQL locks in the order
    /// `FOR UPDATE OF` names them). Nil when the user is not a member (or `kinds` excludes the
    /// conversation).
    private func lockWatermark(
        _ connection: PostgresConnection, _ column: String, of userId: UserID, in conversationId: ConversationID,
        kinds: [ConversationKind]?
    ) async throws -> PostgresRandomAccessRow? {
        try await connection.rows(
            """
            SELECT c.kind, c.max_seq, c.members_version, m.\(column) AS current FROM conversations c
            JOIN members m ON m.conversation_id = c.id AND m.user_id = $2
            WHERE c.id = $1 \(kinds == nil ? "" : "AND c.kind = ANY(string_to_array($3, ','))")
            FOR UPDATE OF \(kinds == nil ? "c, m" : "m")
            """,
            [.int(conversationId.rawValue), .int(userId.rawValue)]
                + (kinds.map { [.text($0.map(\.rawValue).joined(separator: ","))] } ?? []),
            logger: logger
        ).first
    }
}

extension Message {
    /// Decodes a `messages` row (finding its columns: a result of many rows finds them once,
    /// with ``init(row:layout:conversationId:)``).
    init(row: PostgresRandomAccessRow) throws { try self.init(row: row, layout: Layout(PostgresColumns(row))) }

    /// Decodes a `messages` row whose columns are at `layout`; `conversationId`, when given,
    /// stands for the row's.
    init(row: PostgresRandomAccessRow, layout: Layout, conversationId: ConversationID? = nil) throws {
        guard let conversationId = try conversationId ?? layout.conversationId.map({ ConversationID(try row.int($0)) })
        else { preconditionFailure("A message decoded without its conversation.") }
        self.init(
            id: MessageID(try row.int(layout.id)), conversationId: conversationId, seq: try row.int(layout.seq),
            senderId: UserID(try row.int(layout.senderId)), clientMsgId: try row.text(layout.clientMsgId),
            kind: MessageKind(rawValue: try row.text(layout.kind)),
            content: try JSONText.decodeValue(from: try row.text(layout.content)), sentAt: try row.int(layout.sentAt),
            quote: try row.optionalText(layout.quote).map { try JSONText.decode(MessageQuote.self, from: $0) },
            forwarded: try row.bool(layout.forwarded) ? true : nil, editedAt: try row.optionalInt(layout.editedAt))
    }
}
