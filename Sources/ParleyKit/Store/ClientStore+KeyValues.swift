import GRDB
import ParleyCore

/// Values kept under a key: the session, the sync cursor.
extension ClientStore {
    public static let cursorKey = "sync.cursor"
    /// The signed-in session (JSON ``StoredSession``).
    static let sessionKey = "session"
    /// The highest event seq that sync pages have brought (pushes do not count).
    static let syncedEventSeqKey = "sync.eventSeq"
    /// Set once the contact book was fetched whole; a snapshot sync clears it.
    static let contactsKnownKey = "contacts.known"
    /// The seq of the last contact event applied, so a whole fetch can tell whether one came
    /// in while it ran.
    static let contactEventSeqKey = "contacts.eventSeq"

    /// A value kept under a key (session tokens, the sync cursor, the user id).
    public func value(_ key: String) throws -> String? {
        try writer.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    package func setValue(_ value: String?, for key: String) throws {
        try writer.write { db in try Self.setValue(db, value, for: key) }
    }

    /// The signed-in user, from the stored session.
    static func selfId(_ db: Database) throws -> UserID? {
        try Int64.fetchOne(
            db, sql: "SELECT json_extract(value, '$.userId') FROM meta WHERE key = ?", arguments: [sessionKey]
        ).map { UserID($0) }
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
}
