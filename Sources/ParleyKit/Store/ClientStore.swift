import Foundation
import GRDB
import ParleyCore

/// The device's own database (SPEC 4): the signed-in session, conversations, messages keyed
/// by `(conversation, seq)`, the outbox and the sync cursor. Opening an existing file resumes
/// where the last process left off.
///
/// Invariants in the schema: a seq is held at most once per conversation, a `clientMsgId`
/// is queued at most once. Writes are named by what they do.
public final class ClientStore: Sendable {
    let writer: any DatabaseWriter

    /// Opens the store at `path`, or an in-memory one when `path` is nil.
    public init(path: String?) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        if let path {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            writer = try DatabasePool(path: path, configuration: configuration)
        } else {
            writer = try DatabaseQueue(configuration: configuration)
        }
        try Self.migrator.migrate(writer)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT NOT NULL, nickname TEXT NOT NULL,
                        signature TEXT NOT NULL, created_at INTEGER NOT NULL);
                    CREATE TABLE conversations (
                        id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT, peer_id INTEGER,
                        member_count INTEGER NOT NULL, max_seq INTEGER NOT NULL, read_seq INTEGER NOT NULL,
                        others_read_seq INTEGER NOT NULL DEFAULT 0,
                        last_message TEXT, created_at INTEGER NOT NULL, last_activity_at INTEGER NOT NULL);
                    CREATE TABLE messages (
                        conversation_id INTEGER NOT NULL, seq INTEGER NOT NULL CHECK (seq >= 1),
                        id INTEGER NOT NULL, sender_id INTEGER NOT NULL, client_msg_id TEXT NOT NULL,
                        kind TEXT NOT NULL, content TEXT NOT NULL, sent_at INTEGER NOT NULL,
                        PRIMARY KEY (conversation_id, seq)) WITHOUT ROWID;
                    CREATE TABLE outbox (
                        local_id INTEGER PRIMARY KEY AUTOINCREMENT, client_msg_id TEXT NOT NULL UNIQUE,
                        conversation_id INTEGER, to_user_id INTEGER, kind TEXT NOT NULL, content TEXT NOT NULL,
                        created_at INTEGER NOT NULL, state TEXT NOT NULL CHECK (state IN ('sending', 'sent', 'failed')),
                        sent_seq INTEGER, failure TEXT, retryable INTEGER NOT NULL DEFAULT 1,
                        CHECK ((conversation_id IS NULL) != (to_user_id IS NULL)));
                    """)
        }
        // Delete-for-me: the row stays (so its seq is not a hole to fetch again), marked hidden.
        migrator.registerMigration("v2 hidden messages") { db in
            try db.execute(sql: "ALTER TABLE messages ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0")
        }
        return migrator
    }

    // MARK: Session and cursor

    /// A value kept under a key (session tokens, the sync cursor, the user id).
    public func value(_ key: String) throws -> String? {
        try writer.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    public func setValue(_ value: String?, for key: String) throws {
        try writer.write { db in try Self.setValue(db, value, for: key) }
    }

    static func setValue(_ db: Database, _ value: String?, for key: String) throws {
        if let value {
            try db.execute(
                sql:
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        } else {
            try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
        }
    }

    public static let cursorKey = "sync.cursor"

    // MARK: Sync results

    /// Applies one sync page and its new cursor in one transaction, so the cursor never
    /// runs ahead of what is stored.
    public func applySync(_ response: SyncResponse) throws -> [Message] {
        try writer.write { db in
            var inserted: [Message] = []
            for conversation in response.conversations {
                try Self.saveConversation(db, conversation)
                if let last = conversation.lastMessage, try Self.insert(db, last) { inserted.append(last) }
            }
            for event in response.events { try Self.apply(db, event) }
            try Self.setValue(db, response.cursor, for: Self.cursorKey)
            return inserted
        }
    }

    /// Applies an event pushed on the socket (it will come again in the next sync; applying
    /// twice is harmless).
    public func applyEvent(_ event: UserEvent) throws {
        try writer.write { db in try Self.apply(db, event) }
    }

    private static func apply(_ db: Database, _ event: UserEvent) throws {
        switch event.body {
        case .readMoved(let moved):
            try db.execute(
                sql: "UPDATE conversations SET read_seq = MAX(read_seq, ?) WHERE id = ?",
                arguments: [moved.readSeq, moved.conversationId.rawValue])
        case .profileUpdated(let updated):
            try saveUser(db, updated.account.user)
        case .conversationUpdated(let updated):
            try db.execute(
                sql: "UPDATE conversations SET name = ? WHERE id = ?",
                arguments: [updated.name, updated.conversationId.rawValue])
        default:
            break
        }
    }

    public func saveConversation(_ conversation: ConversationSummary) throws {
        try writer.write { db in try Self.saveConversation(db, conversation) }
    }

    private static func saveConversation(_ db: Database, _ summary: ConversationSummary) throws {
        try db.execute(
            sql: """
                INSERT INTO conversations (id, kind, name, peer_id, member_count, max_seq, read_seq, others_read_seq,
                    last_message, created_at, last_activity_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, member_count = excluded.member_count,
                    max_seq = MAX(max_seq, excluded.max_seq), read_seq = MAX(read_seq, excluded.read_seq),
                    others_read_seq = MAX(others_read_seq, excluded.others_read_seq),
                    last_message = CASE WHEN excluded.max_seq >= max_seq THEN excluded.last_message ELSE last_message END,
                    last_activity_at = MAX(last_activity_at, excluded.last_activity_at)
                """,
            arguments: [
                summary.id.rawValue, summary.kind.rawValue, summary.name, summary.peerId?.rawValue, summary.memberCount,
                summary.maxSeq, summary.readSeq, summary.othersReadSeq, try summary.lastMessage.map(JSONText.encode),
                summary.createdAt,
                summary.lastActivityAt,
            ])
        try reconcile(db, summary.id)
    }

    /// A message pushed before its conversation was known may be newer than the summary just
    /// saved (read before it committed): the conversation takes the newest message held.
    private static func reconcile(_ db: Database, _ id: ConversationID) throws {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT m.* FROM messages m JOIN conversations c ON c.id = m.conversation_id
                    WHERE m.conversation_id = ? AND m.seq > c.max_seq ORDER BY m.seq DESC LIMIT 1
                    """,
                arguments: [id.rawValue])
        else { return }
        let newest = try message(row)
        try db.execute(
            sql:
                "UPDATE conversations SET max_seq = ?, last_message = ?, last_activity_at = MAX(last_activity_at, ?) WHERE id = ?",
            arguments: [newest.seq, try JSONText.encode(newest), newest.sentAt, id.rawValue])
    }

    // MARK: Users

    public func saveUser(_ user: User) throws {
        try writer.write { db in try Self.saveUser(db, user) }
    }

    private static func saveUser(_ db: Database, _ user: User) throws {
        try db.execute(
            sql: """
                INSERT INTO users (id, username, nickname, signature, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET nickname = excluded.nickname, signature = excluded.signature
                """,
            arguments: [user.id.rawValue, user.username, user.nickname, user.signature, user.createdAt])
    }

    public func user(_ id: UserID) throws -> User? {
        try writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id.rawValue]).map {
                User(
                    id: UserID($0["id"]), username: $0["username"], nickname: $0["nickname"],
                    signature: $0["signature"], createdAt: $0["created_at"])
            }
        }
    }

    // MARK: Messages

    /// Stores committed messages; returns those not held before, in seq order. A message
    /// sent from this device also marks its outbox item sent.
    @discardableResult
    public func saveMessages(_ messages: [Message]) throws -> [Message] {
        try writer.write { db in
            var inserted: [Message] = []
            for message in messages where try Self.insert(db, message) { inserted.append(message) }
            return inserted.sorted { ($0.conversationId, $0.seq) < ($1.conversationId, $1.seq) }
        }
    }

    /// Inserts one message and advances its conversation; false when the seq was already held.
    private static func insert(_ db: Database, _ message: Message) throws -> Bool {
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
    public func deleteLocalMessage(_ conversationId: ConversationID, seq: Int64) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE messages SET hidden = 1, content = '{}' WHERE conversation_id = ? AND seq = ?",
                arguments: [conversationId.rawValue, seq])
        }
    }

    /// Conversations whose highest known seq is above the number of seqs held: they have holes.
    public func conversationsWithHoles() throws -> [(id: ConversationID, maxSeq: Int64)] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.id, c.max_seq FROM conversations c
                    WHERE c.max_seq > (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id)
                    ORDER BY c.id
                    """
            ).map { (ConversationID($0["id"]), $0["max_seq"]) }
        }
    }

    private static func message(_ row: Row) throws -> Message {
        Message(
            id: MessageID(row["id"]), conversationId: ConversationID(row["conversation_id"]), seq: row["seq"],
            senderId: UserID(row["sender_id"]), clientMsgId: row["client_msg_id"],
            kind: MessageKind(rawValue: row["kind"]),
            content: try JSONText.decode(JSONValue.self, from: row["content"]), sentAt: row["sent_at"])
    }

    // MARK: Conversations

    /// The conversations, most recently active first.
    public func conversations() throws -> [ConversationSummary] {
        try writer.read { db in try Self.fetchConversations(db) }
    }

    public func conversation(_ id: ConversationID) throws -> ConversationSummary? {
        try writer.read { db in try Self.fetchConversations(db, where: "id = ?", [id.rawValue]).first }
    }

    /// The direct conversation with the user called `username` (in any case), if this device
    /// has it; usernames never change, so no server is needed to find it again.
    public func directConversation(withUsername username: String) throws -> ConversationSummary? {
        try writer.read { db in
            try Self.fetchConversations(
                db, where: "kind = ? AND peer_id IN (SELECT id FROM users WHERE lower(username) = ?)",
                [ConversationKind.direct.rawValue, AccountRules.canonicalUsername(username)]
            ).first
        }
    }

    /// The conversation list as it changes: the current list first, then one per change.
    public func observeConversations() -> AsyncValueObservation<[ConversationSummary]> {
        ValueObservation.tracking { db in try Self.fetchConversations(db) }.values(in: writer)
    }

    /// The highest seq another member has read, for "read" ticks on own messages.
    public func othersReadSeq(_ conversationId: ConversationID) throws -> Int64 {
        try writer.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT others_read_seq FROM conversations WHERE id = ?", arguments: [conversationId.rawValue])
                ?? 0
        }
    }

    public func recordOthersRead(_ receipt: ReadReceipt) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE conversations SET others_read_seq = MAX(others_read_seq, ?) WHERE id = ?",
                arguments: [receipt.seq, receipt.conversationId.rawValue])
        }
    }

    public func markReadLocally(_ conversationId: ConversationID, upTo seq: Int64) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE conversations SET read_seq = MAX(read_seq, ?) WHERE id = ?",
                arguments: [seq, conversationId.rawValue])
        }
    }

    private static func fetchConversations(
        _ db: Database, where condition: String = "1", _ arguments: StatementArguments = []
    ) throws -> [ConversationSummary] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM conversations WHERE \(condition) ORDER BY last_activity_at DESC, id DESC",
            arguments: arguments
        ).map { row in
            ConversationSummary(
                id: ConversationID(row["id"]), kind: ConversationKind(rawValue: row["kind"]) ?? .group,
                name: row["name"],
                peerId: (row["peer_id"] as Int64?).map { UserID($0) }, memberCount: row["member_count"],
                maxSeq: row["max_seq"], readSeq: row["read_seq"], othersReadSeq: row["others_read_seq"],
                lastMessage: try (row["last_message"] as String?).map { try JSONText.decode(Message.self, from: $0) },
                createdAt: row["created_at"], lastActivityAt: row["last_activity_at"])
        }
    }

    // MARK: Outbox

    /// Queues a message to send; it is shown at once as `sending`.
    public func enqueue(
        clientMsgId: String, conversationId: ConversationID?, toUserId: UserID?, kind: MessageKind, content: JSONValue,
        at now: Int64
    ) throws -> OutboxItem {
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO outbox (client_msg_id, conversation_id, to_user_id, kind, content, created_at, state)
                    VALUES (?, ?, ?, ?, ?, ?, 'sending')
                    """,
                arguments: [
                    clientMsgId, conversationId?.rawValue, toUserId?.rawValue, kind.rawValue,
                    try JSONText.encode(content), now,
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
    public func markSent(_ message: Message) throws -> OutboxItem? {
        try writer.write { db in
            try db.execute(
                sql:
                    "UPDATE outbox SET state = 'sent', sent_seq = ?, conversation_id = ?, to_user_id = NULL, failure = NULL WHERE client_msg_id = ?",
                arguments: [message.seq, message.conversationId.rawValue, message.clientMsgId])
            _ = try Self.insert(db, message)
            return try Self.fetchOutbox(db, "client_msg_id = ?", [message.clientMsgId]).first
        }
    }

    public func markFailed(_ clientMsgId: String, reason: String, retryable: Bool) throws -> OutboxItem? {
        try writer.write { db in
            try db.execute(
                sql:
                    "UPDATE outbox SET state = 'failed', failure = ?, retryable = ? WHERE client_msg_id = ? AND state = 'sending'",
                arguments: [reason, retryable, clientMsgId])
            return try Self.fetchOutbox(db, "client_msg_id = ?", [clientMsgId]).first
        }
    }

    /// Puts a failed item back to `sending` with its original `clientMsgId`.
    public func markSending(_ clientMsgId: String, at now: Int64) throws -> OutboxItem? {
        try writer.write { db in
            try db.execute(
                sql:
                    "UPDATE outbox SET state = 'sending', failure = NULL, created_at = ? WHERE client_msg_id = ? AND state = 'failed'",
                arguments: [now, clientMsgId])
            return try Self.fetchOutbox(db, "client_msg_id = ?", [clientMsgId]).first
        }
    }

    /// Drops a failed item; true when there was one.
    public func removeFailed(_ clientMsgId: String) throws -> Bool {
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
                content: try JSONText.decode(JSONValue.self, from: row["content"]), createdAt: row["created_at"],
                state: state)
        }
    }
}
