import GRDB
import ParleyCore

/// Committed messages, keyed by `(conversation, seq)`, and the holes between them.
extension ClientStore {
    /// Stores committed messages: those not held before are inserted, a held one is replaced
    /// by a newer form (``supersedes(_:kind:editedAt:)``), a `deleted` placeholder hides its
    /// seq. Returns what changed.
    @discardableResult
    package func saveMessages(_ messages: [Message]) throws -> StoreChanges {
        try writer.write { db in
            var changes = StoreChanges()
            for message in messages { changes.merge(try Self.store(db, message)) }
            return changes.ordered
        }
    }

    /// Whether `incoming` is a newer form of a message held as `kind`, last edited at
    /// `editedAt`: a recall is final and wins over any other form; otherwise the later edit
    /// wins, and an original (never edited) replaces nothing.
    static func supersedes(_ incoming: Message, kind: MessageKind, editedAt: Int64?) -> Bool {
        if kind == .recalled { return false }
        if incoming.kind == .recalled { return true }
        return (incoming.editedAt ?? 0) > (editedAt ?? 0)
    }

    /// Stores one message (see ``saveMessages(_:)``). `countsMentions` false leaves the
    /// conversation's count of unread mentions alone (a summary just gave it, counting this
    /// message as it now stands).
    static func store(_ db: Database, _ message: Message, countsMentions: Bool = true) throws -> StoreChanges {
        if message.kind == .deleted {
            try doubtMembers(db, message.conversationId, placeholderAt: message.seq)
            return try hide(db, message.conversationId, seqs: [message.seq])
        }
        // Only a system message is read for its notice: every other message is stored as it came.
        if message.kind == .system, case .system(let notice) = message.typedContent {
            try applyNotice(db, notice, in: message.conversationId, seq: message.seq, at: message.sentAt)
        }
        var message = message
        message.quote = try currentQuote(db, message)
        let conversation = try Row.fetchOne(
            db,
            sql: """
                SELECT max_seq, read_seq, COALESCE(json_extract(settings, '$.clearedUpToSeq'), 0) AS cleared
                FROM conversations WHERE id = ?
                """, arguments: [message.conversationId.rawValue])
        let cleared: Int64 = conversation?["cleared"] ?? 0
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO messages (conversation_id, seq, id, sender_id, client_msg_id, kind, content, sent_at,
                    quote, forwarded, edited_at, hidden)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                message.conversationId.rawValue, message.seq, message.id.rawValue, message.senderId.rawValue,
                message.clientMsgId, message.kind.rawValue,
                try JSONText.encode(message.seq <= cleared ? [:] : message.content), message.sentAt,
                try message.quote.map(JSONText.encode), message.isForwarded, message.editedAt, message.seq <= cleared,
            ])
        guard db.changesCount == 1 else {
            let changes = try replace(db, message, countsMentions: countsMentions)
            try refreshLastMessage(db, message.conversationId)
            return changes
        }
        try db.execute(
            sql: """
                UPDATE conversations SET
                    last_message = CASE WHEN ? >= max_seq THEN ? ELSE last_message END,
                    max_seq = MAX(max_seq, ?), last_activity_at = MAX(last_activity_at, ?)
                WHERE id = ?
                """,
            arguments: [
                message.seq, try JSONText.encode(message), message.seq, message.sentAt, message.conversationId.rawValue,
            ])
        // A message beyond what the last summary counted that mentions the user and is unread.
        if countsMentions, let conversation, message.seq > conversation["max_seq"],
            message.seq > conversation["read_seq"], message.seq > cleared, mentions(message, user: try selfId(db))
        {
            try db.execute(
                sql: "UPDATE conversations SET unread_mentions = unread_mentions + 1 WHERE id = ?",
                arguments: [message.conversationId.rawValue])
        }
        var changes = StoreChanges(inserted: message.seq <= cleared ? [] : [message])
        changes.updated = try requote(db, message)
        try refreshLastMessage(db, message.conversationId)
        return changes
    }

    /// Replaces a held message by `message` when it is a newer form of it; a recall of the
    /// user's own text keeps that text aside (``recalledText(in:seq:)``). A placeholder held
    /// for a seq the user deleted before its message arrived takes the message's id and
    /// fields (so that replies find what they quote), and stays hidden.
    private static func replace(_ db: Database, _ message: Message, countsMentions: Bool) throws -> StoreChanges {
        let key: StatementArguments = [message.conversationId.rawValue, message.seq]
        guard
            let held = try Row.fetchOne(
                db, sql: "SELECT * FROM messages WHERE conversation_id = ? AND seq = ?", arguments: key)
        else { return StoreChanges() }
        let hidden = held["hidden"] == true
        let heldId: Int64 = held["id"]
        let placeholder = hidden && heldId == 0
        guard placeholder || supersedes(message, kind: MessageKind(rawValue: held["kind"]), editedAt: held["edited_at"])
        else { return StoreChanges() }
        let before = try Self.message(held)
        let me = try selfId(db)
        let keptText = message.isRecalled && before.senderId == me && !hidden ? before.typedContent.text : nil
        try db.execute(
            sql: """
                UPDATE messages SET id = ?, sender_id = ?, client_msg_id = ?, sent_at = ?, kind = ?, content = ?,
                    quote = ?, forwarded = ?, edited_at = ?, recalled_text = COALESCE(?, recalled_text)
                WHERE conversation_id = ? AND seq = ?
                """,
            arguments: [
                message.id.rawValue, message.senderId.rawValue, message.clientMsgId, message.sentAt,
                message.kind.rawValue, hidden ? "{}" : try JSONText.encode(message.content),
                try message.quote.map(JSONText.encode), message.isForwarded, message.editedAt, keptText,
            ] + key)
        if countsMentions, message.isRecalled, mentions(before, user: me) {
            try db.execute(
                sql: """
                    UPDATE conversations SET unread_mentions = MAX(0, unread_mentions - 1)
                    WHERE id = ? AND read_seq < ? AND max_seq >= ?
                    """, arguments: [message.conversationId.rawValue, message.seq, message.seq])
        }
        var changes = StoreChanges(updated: hidden ? [] : [message])
        changes.updated += try requote(db, message)
        return changes
    }

    /// Sets the conversation's preview (`last_message`) from what this device holds for the
    /// seq it shows (its last message, else `max_seq`): nothing at or below what the user
    /// cleared; a `deleted` placeholder for a message the user deleted; else the newest form
    /// of the message, the held one with its current quote unless the preview is newer
    /// (a summary's, whose event is still to come). Called after every change to a summary,
    /// a message, or what is hidden, so the preview never shows what the chat does not.
    static func refreshLastMessage(_ db: Database, _ conversationId: ConversationID) throws {
        guard
            let conversation = try Row.fetchOne(
                db,
                sql: """
                    SELECT last_message, max_seq, COALESCE(json_extract(settings, '$.clearedUpToSeq'), 0) AS cleared
                    FROM conversations WHERE id = ?
                    """, arguments: [conversationId.rawValue])
        else { return }
        let current = try (conversation["last_message"] as String?).map { try JSONText.decode(Message.self, from: $0) }
        let maxSeq: Int64 = conversation["max_seq"]
        let cleared: Int64 = conversation["cleared"]
        let seq = current?.seq ?? maxSeq
        let row = try Row.fetchOne(
            db, sql: "SELECT * FROM messages WHERE conversation_id = ? AND seq = ?",
            arguments: [conversationId.rawValue, seq])
        let last: Message?
        if seq <= cleared {
            last = nil
        } else if let row, row["hidden"] == true {
            let held = try message(row)
            last = deletedPlaceholder(of: held.id.rawValue == 0 ? current ?? held : held)
        } else if let row, current?.kind != .deleted {
            let held = try message(row)
            last = current.map { supersedes($0, kind: held.kind, editedAt: held.editedAt) } == true ? current : held
        } else {
            last = current
        }
        guard last != current else { return }
        try db.execute(
            sql: "UPDATE conversations SET last_message = ? WHERE id = ?",
            arguments: [try last.map(JSONText.encode), conversationId.rawValue])
    }

    /// What the server shows a user in place of a message they deleted for themselves.
    private static func deletedPlaceholder(of message: Message) -> Message {
        Message(
            id: message.id, conversationId: message.conversationId, seq: message.seq, senderId: message.senderId,
            clientMsgId: message.clientMsgId, kind: .deleted, content: .object([:]), sentAt: message.sentAt)
    }

    /// The replies held that quote `message` (recalled or edited) quote it as it now stands;
    /// returns those that changed.
    private static func requote(_ db: Database, _ message: Message) throws -> [Message] {
        guard message.isRecalled || message.editedAt != nil else { return [] }
        let quote = try JSONText.encode(MessageQuote(of: message))
        let condition = "conversation_id = ? AND json_extract(quote, '$.id') = ? AND quote != ?"
        let arguments: StatementArguments = [message.conversationId.rawValue, message.id.rawValue, quote]
        let replies = try Row.fetchAll(
            db, sql: "SELECT seq, hidden FROM messages WHERE \(condition)", arguments: arguments)
        guard !replies.isEmpty else { return [] }
        try db.execute(sql: "UPDATE messages SET quote = ? WHERE \(condition)", arguments: [quote] + arguments)
        return try replies.filter { $0["hidden"] == false }.compactMap { reply in
            try Row.fetchOne(
                db, sql: "SELECT * FROM messages WHERE conversation_id = ? AND seq = ?",
                arguments: [message.conversationId.rawValue, reply["seq"] as Int64]
            ).map(Self.message)
        }
    }

    /// A reply's quote, or the newer form of it this device holds (its push may have been on
    /// its way while the message it quotes was recalled or edited).
    private static func currentQuote(_ db: Database, _ message: Message) throws -> MessageQuote? {
        guard let quote = message.quote, quote.kind != .recalled,
            let row = try Row.fetchOne(
                db,
                sql:
                    "SELECT * FROM messages WHERE conversation_id = ? AND id = ? AND (hidden = 0 OR kind = 'recalled')",
                arguments: [message.conversationId.rawValue, quote.id.rawValue])
        else { return message.quote }
        let target = try Self.message(row)
        return target.isRecalled || target.editedAt != nil ? MessageQuote(of: target) : quote
    }

    /// Whether `message` is one by someone else that mentions `user` (by id or everyone).
    private static func mentions(_ message: Message, user: UserID?) -> Bool {
        guard let user, message.senderId != user else { return false }
        let mentions = message.typedContent.mentions
        return mentions.all || mentions.userIds.contains(user)
    }

    /// Hides seqs of a conversation (the user deleted them for themselves). A seq not held yet
    /// is held as a hidden placeholder, so that the message, if its push is still on its way,
    /// never shows and its seq is never fetched.
    static func hide(_ db: Database, _ conversationId: ConversationID, seqs: [Int64]) throws -> StoreChanges {
        guard !seqs.isEmpty else { return StoreChanges() }
        let list = seqs.map { "\($0)" }.joined(separator: ",")
        let visible = try Int64.fetchAll(
            db, sql: "SELECT seq FROM messages WHERE conversation_id = ? AND hidden = 0 AND seq IN (\(list))",
            arguments: [conversationId.rawValue])
        try db.execute(
            sql: """
                UPDATE messages SET hidden = 1, content = '{}', recalled_text = NULL
                WHERE conversation_id = ? AND seq IN (\(list))
                """, arguments: [conversationId.rawValue])
        for seq in seqs {
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO messages (conversation_id, seq, id, sender_id, client_msg_id, kind, content,
                        sent_at, hidden)
                    VALUES (?, ?, 0, 0, '', 'deleted', '{}', 0, 1)
                    """, arguments: [conversationId.rawValue, seq])
        }
        try refreshLastMessage(db, conversationId)
        return StoreChanges(hidden: visible.isEmpty ? [:] : [conversationId: visible])
    }

    /// Hides what the user cleared of a conversation (up to its settings' `clearedUpToSeq`),
    /// in the preview too.
    static func hideCleared(_ db: Database, _ conversationId: ConversationID) throws -> StoreChanges {
        let condition = """
            conversation_id = ? AND hidden = 0 AND seq <= (SELECT COALESCE(json_extract(settings, '$.clearedUpToSeq'), 0)
                FROM conversations WHERE id = ?)
            """
        let arguments: StatementArguments = [conversationId.rawValue, conversationId.rawValue]
        let cleared = try Int64.fetchAll(db, sql: "SELECT seq FROM messages WHERE \(condition)", arguments: arguments)
        if !cleared.isEmpty {
            try db.execute(
                sql: "UPDATE messages SET hidden = 1, content = '{}', recalled_text = NULL WHERE \(condition)",
                arguments: arguments)
        }
        try refreshLastMessage(db, conversationId)
        return cleared.isEmpty ? StoreChanges() : StoreChanges(hidden: [conversationId: cleared])
    }

    /// The message at `seq` of a conversation, unless it is not held or hidden.
    public func message(in conversationId: ConversationID, seq: Int64) throws -> Message? {
        try writer.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM messages WHERE conversation_id = ? AND seq = ? AND hidden = 0",
                arguments: [conversationId.rawValue, seq]
            ).map(Self.message)
        }
    }

    /// The message with this id in a conversation, if held and shown.
    public func message(withId id: MessageID, in conversationId: ConversationID) throws -> Message? {
        try writer.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM messages WHERE conversation_id = ? AND id = ? AND hidden = 0",
                arguments: [conversationId.rawValue, id.rawValue]
            ).map(Self.message)
        }
    }

    /// The text of one of the user's own messages that they recalled, kept on this device
    /// only so that they can edit it and send it again; nil for any other message.
    public func recalledText(in conversationId: ConversationID, seq: Int64) throws -> String? {
        try writer.read { db in
            try String.fetchOne(
                db, sql: "SELECT recalled_text FROM messages WHERE conversation_id = ? AND seq = ? AND hidden = 0",
                arguments: [conversationId.rawValue, seq])
        }
    }

    /// Up to `limit` messages of a conversation below `before` (or the newest), in seq order.
    public func messages(in conversationId: ConversationID, before: Int64? = nil, limit: Int = 50) throws -> [Message] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM messages WHERE conversation_id = ? AND seq < ? AND hidden = 0 ORDER BY seq DESC LIMIT ?
                    """,
                arguments: [conversationId.rawValue, before ?? Int64.max, limit]
            ).map(Self.message).reversed()
        }
    }

    /// Every message of a conversation in seq order.
    public func allMessages(in conversationId: ConversationID) throws -> [Message] {
        try writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM messages WHERE conversation_id = ? AND hidden = 0 ORDER BY seq",
                arguments: [conversationId.rawValue]
            )
            .map(Self.message)
        }
    }

    /// The seq ranges within `lower...upper` that this device does not hold.
    public func holes(in conversationId: ConversationID, within range: ClosedRange<Int64>) throws -> [ClosedRange<
        Int64
    >] {
        try writer.read { db in
            let held = try Int64.fetchAll(
                db, sql: "SELECT seq FROM messages WHERE conversation_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                arguments: [conversationId.rawValue, range.lowerBound, range.upperBound])
            // The server keeps nothing up to what the user cleared.
            let cleared =
                try Int64.fetchOne(
                    db, sql: "SELECT json_extract(settings, '$.clearedUpToSeq') FROM conversations WHERE id = ?",
                    arguments: [conversationId.rawValue]) ?? 0
            var holes: [ClosedRange<Int64>] = []
            var next = max(range.lowerBound, cleared + 1)
            for seq in held {
                if seq > next { holes.append(next...(seq - 1)) }
                next = max(next, seq + 1)
            }
            if next <= range.upperBound { holes.append(next...range.upperBound) }
            return holes
        }
    }

    /// Hides messages the user deleted for themselves (see ``hide(_:_:seqs:)``).
    package func hideMessages(_ seqs: [Int64], in conversationId: ConversationID) throws -> StoreChanges {
        try writer.write { db in try Self.hide(db, conversationId, seqs: seqs).ordered }
    }

    /// Hides one message on this device only. The row stays (content cleared) so the seq
    /// still counts as held and is never fetched again.
    package func deleteLocalMessage(_ conversationId: ConversationID, seq: Int64) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE messages SET hidden = 1, content = '{}' WHERE conversation_id = ? AND seq = ?",
                arguments: [conversationId.rawValue, seq])
            try Self.refreshLastMessage(db, conversationId)
        }
    }

    /// The conversations to fill, and up to which seq: those whose highest known seq is above
    /// the number of seqs held beyond what the user cleared (they have holes), and those the user left whose history up to
    /// the removal was not fetched yet (up to the removal's `lastSeq`, the last seq the server
    /// shows them). A conversation the user left is not filled again after that.
    public func conversationsWithHoles() throws -> [(id: ConversationID, upTo: Int64)] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.id, CASE WHEN c.removal IS NULL THEN c.max_seq ELSE c.history_due END AS up_to
                    FROM conversations c
                    WHERE CASE WHEN c.removal IS NULL
                        THEN c.max_seq - COALESCE(json_extract(c.settings, '$.clearedUpToSeq'), 0) > (
                            SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id AND m.seq <= c.max_seq
                                AND m.seq > COALESCE(json_extract(c.settings, '$.clearedUpToSeq'), 0))
                        ELSE c.history_due IS NOT NULL END
                    ORDER BY c.id
                    """
            ).map { (ConversationID($0["id"]), $0["up_to"]) }
        }
    }

    static func message(_ row: Row) throws -> Message {
        Message(
            id: MessageID(row["id"]), conversationId: ConversationID(row["conversation_id"]), seq: row["seq"],
            senderId: UserID(row["sender_id"]), clientMsgId: row["client_msg_id"],
            kind: MessageKind(rawValue: row["kind"]),
            content: try JSONText.decodeValue(from: row["content"]), sentAt: row["sent_at"],
            quote: try (row["quote"] as String?).map { try JSONText.decode(MessageQuote.self, from: $0) },
            forwarded: row["forwarded"] == true ? true : nil, editedAt: row["edited_at"])
    }
}
