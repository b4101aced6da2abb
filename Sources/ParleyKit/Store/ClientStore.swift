import Foundation
import GRDB
import ParleyCore

/// The device's own database (SPEC 4): the signed-in session, conversations, messages keyed
/// by `(conversation, seq)`, the outbox and the sync cursor. Opening an existing file resumes
/// where the last process left off.
///
/// Invariants in the schema: a seq is held at most once per conversation, a `clientMsgId`
/// is queued at most once. Writes are named by what they do and are `package`: only the
/// client engine (``ParleyClient`` and its parts) writes; apps read and observe.
///
/// One file per concern: key-values (session, cursor), sync results, conversations, groups
/// (members, profiles, join requests), users, messages, the outbox.
public final class ClientStore: Sendable {
    let writer: any DatabaseWriter

    /// Opens the store at `path`, or an in-memory one when `path` is nil.
    public init(path: String?) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in db.add(function: Self.searchTextFunction) }
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
        // An item queued after other work (an upload) that has not finished yet. The work itself
        // lives in memory; after a restart the flag says the item cannot be sent as it is.
        migrator.registerMigration("v3 outbox dependencies") { db in
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN awaits_dependency INTEGER NOT NULL DEFAULT 0")
        }
        // The seq of the `conversation.updated` event that set a conversation's name, so that
        // an older summary or event never puts back an older name.
        migrator.registerMigration("v4 name seq") { db in
            try db.execute(sql: "ALTER TABLE conversations ADD COLUMN name_seq INTEGER NOT NULL DEFAULT 0")
        }
        // Group administration. `name_seq` becomes `profile_seq`: the seq of the
        // `conversation.updated` event that set the name and the profile (`group_profile`,
        // JSON). `membership_seq` is the seq of the last `conversation.added`/`.removed`
        // applied; `removal` (JSON `ConversationRemoved`) is set while the user is out of it.
        // Member and request rows carry the seq of the event that last wrote them, so an older
        // event or snapshot never undoes a newer one; a removed member stays as a row with
        // `present = 0` for the same reason. (Rowid tables: SQLite reports no row changes of a
        // WITHOUT ROWID table, so GRDB could not observe them.)
        migrator.registerMigration("v5 groups") { db in
            try db.execute(
                sql: """
                    ALTER TABLE conversations RENAME COLUMN name_seq TO profile_seq;
                    ALTER TABLE conversations ADD COLUMN group_profile TEXT;
                    ALTER TABLE conversations ADD COLUMN members_known INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE conversations ADD COLUMN membership_seq INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE conversations ADD COLUMN removal TEXT;
                    CREATE TABLE group_members (
                        conversation_id INTEGER NOT NULL, user_id INTEGER NOT NULL,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
                        nickname TEXT, muted_until INTEGER, joined_at INTEGER NOT NULL,
                        read_seq INTEGER NOT NULL DEFAULT 0, present INTEGER NOT NULL CHECK (present IN (0, 1)),
                        event_seq INTEGER NOT NULL,
                        PRIMARY KEY (conversation_id, user_id));
                    CREATE TABLE join_requests (
                        conversation_id INTEGER NOT NULL, user_id INTEGER NOT NULL, request TEXT NOT NULL,
                        state TEXT NOT NULL, event_seq INTEGER NOT NULL,
                        PRIMARY KEY (conversation_id, user_id));
                    """)
        }
        // A message the server refused keeps the server's error code and `until` (a mute's end).
        migrator.registerMigration("v6 send rejections") { db in
            try db.execute(
                sql: """
                    ALTER TABLE outbox ADD COLUMN failure_code TEXT;
                    ALTER TABLE outbox ADD COLUMN failure_until INTEGER;
                    """)
        }
        // A group the user left keeps its history up to the removal's `lastSeq`, which the
        // server still shows them: `history_due` is that seq until what the device lacks of
        // it was fetched (once), then NULL. A removal stored before `lastSeq` existed takes
        // the highest seq known; every removal held gets its fetch.
        migrator.registerMigration("v7 history of left groups") { db in
            try db.execute(
                sql: """
                    ALTER TABLE conversations ADD COLUMN history_due INTEGER;
                    UPDATE conversations SET removal = json_set(removal, '$.lastSeq', max_seq)
                    WHERE removal IS NOT NULL AND json_type(removal, '$.lastSeq') IS NULL;
                    UPDATE conversations SET history_due = json_extract(removal, '$.lastSeq'),
                        max_seq = MAX(max_seq, json_extract(removal, '$.lastSeq'))
                    WHERE removal IS NOT NULL;
                    """)
        }
        // The user's own settings for each conversation (`ConversationSettings`, JSON; NULL
        // until a summary or an event brings them) and the seq of the `settings.updated` event
        // that set them, so that an older summary or event never puts back older settings.
        migrator.registerMigration("v8 conversation settings") { db in
            try db.execute(
                sql: """
                    ALTER TABLE conversations ADD COLUMN settings TEXT;
                    ALTER TABLE conversations ADD COLUMN settings_seq INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        // Message actions. A message keeps its quote (JSON `MessageQuote`), whether it was
        // forwarded, and when it was last edited: a stored message is replaced only by a newer
        // form (recalled, or edited later), so an original arriving late never undoes either.
        // `recalled_text` is local only: the text of one of the user's own messages that they
        // recalled, kept so it can be edited and sent again. Conversations keep the others'
        // delivered watermark and the unread messages that mention the user.
        migrator.registerMigration("v9 message actions") { db in
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN quote TEXT;
                    ALTER TABLE messages ADD COLUMN forwarded INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE messages ADD COLUMN edited_at INTEGER;
                    ALTER TABLE messages ADD COLUMN recalled_text TEXT;
                    CREATE INDEX messages_by_id ON messages (conversation_id, id);
                    ALTER TABLE conversations ADD COLUMN others_delivered_seq INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE conversations ADD COLUMN unread_mentions INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        // A profile's optional details.
        migrator.registerMigration("v10 profile details") { db in
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN avatar TEXT;
                    ALTER TABLE users ADD COLUMN gender TEXT;
                    ALTER TABLE users ADD COLUMN birthday TEXT;
                    ALTER TABLE users ADD COLUMN region TEXT;
                    """)
        }
        // Friends (with the ids of their friend groups, as JSON), friend groups, friend
        // requests (each as the server last described it) and blocks; the users' profiles
        // are in `users`.
        migrator.registerMigration("v11 contacts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE contacts (
                        user_id INTEGER PRIMARY KEY, remark TEXT NOT NULL, since INTEGER NOT NULL,
                        groups TEXT NOT NULL DEFAULT '[]');
                    CREATE TABLE friend_groups (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL);
                    CREATE TABLE friend_requests (id INTEGER PRIMARY KEY, request TEXT NOT NULL);
                    CREATE TABLE blocks (user_id INTEGER PRIMARY KEY, since INTEGER NOT NULL);
                    """)
        }
        // Search over what the device holds: each message's folded searchable text
        // (``SearchText``), kept by triggers whatever writes the row (a new message, an edit,
        // a recall, a delete for oneself).
        migrator.registerMigration("v12 search") { db in
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN folded TEXT;
                    UPDATE messages SET folded = parley_search_text(kind, content) WHERE hidden = 0;
                    CREATE TRIGGER messages_folded_on_insert AFTER INSERT ON messages BEGIN
                        UPDATE messages SET folded = parley_search_text(NEW.kind, NEW.content)
                        WHERE conversation_id = NEW.conversation_id AND seq = NEW.seq;
                    END;
                    CREATE TRIGGER messages_folded_on_update AFTER UPDATE OF kind, content ON messages BEGIN
                        UPDATE messages SET folded = parley_search_text(NEW.kind, NEW.content)
                        WHERE conversation_id = NEW.conversation_id AND seq = NEW.seq;
                    END;
                    """)
        }
        // The local files a queued media message still has to upload (``OutgoingFile``, JSON).
        migrator.registerMigration("v13 outbox files") { db in
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN files TEXT NOT NULL DEFAULT '[]'")
        }
        // Who is in a group follows its notices in the conversation's seq (joins have no event):
        // the seq of the notice that last placed each member, and the seq a snapshot covers.
        migrator.registerMigration("v14 members by notice") { db in
            try db.execute(
                sql: """
                    ALTER TABLE group_members ADD COLUMN notice_seq INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE conversations ADD COLUMN members_seq INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        // The seq of the newest event applied about each friend request, friend, block, friend
        // group, the user's own profile and their notification preferences, and whether it
        // removed the thing: an older event applied late (a push from another node) never
        // undoes a newer one. The preferences' seq was a key of `meta` before.
        migrator.registerMigration("v15 event marks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE event_marks (
                        topic TEXT NOT NULL, id INTEGER NOT NULL, seq INTEGER NOT NULL, removed INTEGER NOT NULL,
                        PRIMARY KEY (topic, id)) WITHOUT ROWID;
                    INSERT INTO event_marks (topic, id, seq, removed)
                        SELECT 'notifications', 0, CAST(value AS INTEGER), 0 FROM meta WHERE key = 'notifications.seq';
                    DELETE FROM meta WHERE key = 'notifications.seq';
                    """)
        }
        return migrator
    }
}
