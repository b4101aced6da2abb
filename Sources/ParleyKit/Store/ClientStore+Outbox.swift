import GRDB
import ParleyCore

/// The send queue's items, in the order they were queued.
extension ClientStore {
    /// Queues a message to send; it is shown at once as `sending`. `awaitsDependency` marks
    /// one that must not be sent before other work finished (``markDependencyDone(_:)``);
    /// `files` are local files to upload first (``markUploaded(_:file:as:)``).
    package func enqueue(
        clientMsgId: String, conversationId: ConversationID?, toUserId: UserID?, kind: MessageKind, content: JSONValue,
        awaitsDependency: Bool = false, files: [OutgoingFile] = [], at now: Int64
    ) throws -> OutboxItem {
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO outbox (client_msg_id, conversation_id, to_user_id, kind, content, created_at, state,
                        awaits_dependency, files)
                    VALUES (?, ?, ?, ?, ?, ?, 'sending', ?, ?)
                    """,
                arguments: [
                    clientMsgId, conversationId?.rawValue, toUserId?.rawValue, kind.rawValue,
                    try JSONText.encode(content), now, awaitsDependency, try JSONText.encode(files),
                ])
            return try Self.fetchOutbox(db, "local_id = ?", [db.lastInsertedRowID]).first!
        }
    }

    /// Items still to send, in the order they were queued.
    public func sendingItems() throws -> [OutboxItem] {
        try writer.read { db in try Self.fetchOutbox(db, "state = 'sending'", []) }
    }

    /// Every outbox item, sent ones included, in queue order.
    public func outbox() throws -> [OutboxItem] {
        try writer.read { db in try Self.fetchOutbox(db, "1", []) }
    }

    public func outboxItem(_ clientMsgId: String) throws -> OutboxItem? {
        try writer.read { db in try Self.fetchOutbox(db, "client_msg_id = ?", [clientMsgId]).first }
    }

    /// Marks an item committed and stores the committed message, in one transaction.
    package func markSent(_ message: Message) throws -> OutboxItem? {
        try writer.write { db in
            try db.execute(
                sql:
                    "UPDATE outbox SET state = 'sent', sent_seq = ?, conversation_id = ?, to_user_id = NULL, failure = NULL WHERE client_msg_id = ?",
                arguments: [message.seq, message.conversationId.rawValue, message.clientMsgId])
            _ = try Self.store(db, message)
            return try Self.fetchOutbox(db, "client_msg_id = ?", [message.clientMsgId]).first
        }
    }

    /// Marks an item failed; `rejection` is the server's error when it refused the item.
    package func markFailed(_ clientMsgId: String, reason: String, retryable: Bool, rejection: ParleyError? = nil)
        throws -> OutboxItem?
    {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE outbox SET state = 'failed', failure = ?, retryable = ?, failure_code = ?, failure_until = ?
                    WHERE client_msg_id = ? AND state = 'sending'
                    """,
                arguments: [reason, retryable, rejection?.code.rawValue, rejection?.until, clientMsgId])
            return try Self.fetchOutbox(db, "client_msg_id = ?", [clientMsgId]).first
        }
    }

    /// The server's error for an item it refused (code, sentence, and `until` for `muted`);
    /// nil for any other item.
    public func rejection(of clientMsgId: String) throws -> ParleyError? {
        try writer.read { db in
            try Row.fetchOne(
                db,
                sql:
                    "SELECT failure_code, failure, failure_until FROM outbox WHERE client_msg_id = ? AND state = 'failed'",
                arguments: [clientMsgId]
            ).flatMap { row in
                (row["failure_code"] as String?).map {
                    ParleyError(ErrorCode(rawValue: $0), row["failure"] ?? "", until: row["failure_until"])
                }
            }
        }
    }

    /// Puts a failed item back to `sending` with its original `clientMsgId`.
    package func markSending(_ clientMsgId: String, at now: Int64) throws -> OutboxItem? {
        try writer.write { db in
            try db.execute(
                sql:
                    """
                    UPDATE outbox SET state = 'sending', failure = NULL, failure_code = NULL, failure_until = NULL,
                        created_at = ?
                    WHERE client_msg_id = ? AND state = 'failed'
                    """,
                arguments: [now, clientMsgId])
            return try Self.fetchOutbox(db, "client_msg_id = ?", [clientMsgId]).first
        }
    }

    /// One of an item's local files is on the server as `fileId`: the id fills the file's
    /// field of the content and the file leaves the item's list, in one write.
    package func markUploaded(_ clientMsgId: String, file: OutgoingFile, as fileId: String) throws -> OutboxItem? {
        try writer.write { db in
            guard var item = try Self.fetchOutbox(db, "client_msg_id = ?", [clientMsgId]).first else { return nil }
            var content = item.content.objectValue ?? [:]
            content[file.field] = .string(fileId)
            item.content = .object(content)
            item.files.removeAll { $0 == file }
            try db.execute(
                sql: "UPDATE outbox SET content = ?, files = ? WHERE client_msg_id = ?",
                arguments: [try JSONText.encode(item.content), try JSONText.encode(item.files), clientMsgId])
            return item
        }
    }

    /// The work an item waited for has finished: it may be sent.
    package func markDependencyDone(_ clientMsgId: String) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE outbox SET awaits_dependency = 0 WHERE client_msg_id = ?", arguments: [clientMsgId])
        }
    }

    /// Drops an item not sent yet (failed, or still waiting for its dependency); true when
    /// there was one.
    package func removeUnsent(_ clientMsgId: String) throws -> Bool {
        try writer.write { db in
            try db.execute(
                sql: "DELETE FROM outbox WHERE client_msg_id = ? AND state != 'sent'", arguments: [clientMsgId])
            return db.changesCount == 1
        }
    }

    /// Drops a failed item; true when there was one.
    package func removeFailed(_ clientMsgId: String) throws -> Bool {
        try writer.write { db in
            try db.execute(
                sql: "DELETE FROM outbox WHERE client_msg_id = ? AND state = 'failed'", arguments: [clientMsgId])
            return db.changesCount == 1
        }
    }

    private static func fetchOutbox(_ db: Database, _ condition: String, _ arguments: StatementArguments) throws
        -> [OutboxItem]
    {
        try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE \(condition) ORDER BY local_id", arguments: arguments).map
        { row in
            let state: OutboxState
            switch row["state"] as String {
            case "sent": state = .sent(seq: row["sent_seq"])
            case "failed": state = .failed(reason: row["failure"] ?? "", retryable: row["retryable"])
            default: state = .sending
            }
            return OutboxItem(
                localId: row["local_id"], clientMsgId: row["client_msg_id"],
                conversationId: (row["conversation_id"] as Int64?).map { ConversationID($0) },
                toUserId: (row["to_user_id"] as Int64?).map { UserID($0) }, kind: MessageKind(rawValue: row["kind"]),
                content: try JSONText.decodeValue(from: row["content"]), createdAt: row["created_at"],
                state: state, awaitsDependency: row["awaits_dependency"],
                files: try JSONText.decode([OutgoingFile].self, from: row["files"]))
        }
    }
}
