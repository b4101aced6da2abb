import GRDB
import ParleyCore

/// Committed messages, keyed by `(conversation, seq)`, and the holes between them.
extension ClientStore {
    /// Stores committed messages; returns those not held before, in seq order.
    @discardableResult
    package func saveMessages(_ messages: [Message]) throws -> [Message] {
        try writer.write { db in
            var inserted: [Message] = []
            for message in messages where try Self.insert(db, message) { inserted.append(message) }
            return inserted.sorted { ($0.conversationId, $0.seq) < ($1.conversationId, $1.seq) }
        }
    }

    /// Inserts one message and advances its conversation; false when the seq was already held.
    static func insert(_ db: Database, _ message: Message) throws -> Bool {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO messages (conversation_id, seq, id, sender_id, client_msg_id, kind, content, sent_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                message.conversationId.rawValue, message.seq, message.id.rawValue, message.senderId.rawValue,
                message.clientMsgId, message.kind.rawValue, try JSONText.encode(message.content), message.sentAt,
            ])
        guard db.changesCount == 1 else { return false }
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
        return true
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
            var holes: [ClosedRange<Int64>] = []
            var next = range.lowerBound
            for seq in held {
                if seq > next { holes.append(next...(seq - 1)) }
                next = seq + 1
            }
            if next <= range.upperBound { holes.append(next...range.upperBound) }
            return holes
        }
    }

    /// Hides one message on this device only. The row stays (content cleared) so the seq
    /// still counts as held and is never fetched again.
    package func deleteLocalMessage(_ conversationId: ConversationID, seq: Int64) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE messages SET hidden = 1, content = '{}' WHERE conversation_id = ? AND seq = ?",
                arguments: [conversationId.rawValue, seq])
        }
    }

    /// The conversations to fill, and up to which seq: those whose highest known seq is above
    /// the number of seqs held (they have holes), and those the user left whose history up to
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
                        THEN c.max_seq > (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id)
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
            content: try JSONText.decode(JSONValue.self, from: row["content"]), sentAt: row["sent_at"])
    }
}
