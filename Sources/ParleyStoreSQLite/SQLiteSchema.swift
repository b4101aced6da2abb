import GRDB
import ParleyCore

/// The SQLite schema, built by migrations. Invariants live in the schema: unique usernames,
/// emails and phones, one direct conversation per pair, unique `(conversation, seq)` and
/// `(sender, clientMsgId)`, and foreign keys everywhere.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE counters (
                        name TEXT PRIMARY KEY NOT NULL,
                        value INTEGER NOT NULL
                    );
                    INSERT INTO counters (name, value) VALUES ('change_version', 0);

                    CREATE TABLE users (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        username TEXT NOT NULL,
                        username_key TEXT NOT NULL UNIQUE,
                        email TEXT UNIQUE,
                        phone TEXT UNIQUE,
                        password_hash TEXT NOT NULL,
                        nickname TEXT NOT NULL,
                        signature TEXT NOT NULL DEFAULT '',
                        event_seq INTEGER NOT NULL DEFAULT 0,
                        created_at INTEGER NOT NULL
                    );

                    CREATE TABLE sessions (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        device TEXT NOT NULL,
                        ip TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        last_used_at INTEGER NOT NULL,
                        revoked_at INTEGER,
                        access_hash TEXT NOT NULL UNIQUE,
                        access_expires_at INTEGER NOT NULL,
                        refresh_hash TEXT NOT NULL UNIQUE,
                        refresh_expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX sessions_by_user ON sessions(user_id);

                    CREATE TABLE conversations (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL CHECK (kind IN ('direct', 'group')),
                        name TEXT,
                        direct_key TEXT UNIQUE,
                        max_seq INTEGER NOT NULL DEFAULT 0 CHECK (max_seq >= 0),
                        member_count INTEGER NOT NULL DEFAULT 0,
                        version INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        last_activity_at INTEGER NOT NULL,
                        CHECK ((kind = 'direct') = (direct_key IS NOT NULL))
                    );

                    CREATE TABLE members (
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
                        read_seq INTEGER NOT NULL DEFAULT 0 CHECK (read_seq >= 0),
                        version INTEGER NOT NULL,
                        joined_at INTEGER NOT NULL,
                        PRIMARY KEY (conversation_id, user_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX members_by_user ON members(user_id);

                    CREATE TABLE messages (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        seq INTEGER NOT NULL CHECK (seq >= 1),
                        sender_id INTEGER NOT NULL REFERENCES users(id),
                        client_msg_id TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        content TEXT NOT NULL,
                        sent_at INTEGER NOT NULL,
                        UNIQUE (conversation_id, seq),
                        UNIQUE (sender_id, client_msg_id)
                    );

                    CREATE TABLE user_events (
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        seq INTEGER NOT NULL CHECK (seq >= 1),
                        body TEXT NOT NULL,
                        PRIMARY KEY (user_id, seq)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2") { db in
            // Refresh tokens already rotated away: presenting one again revokes its session.
            try db.execute(
                sql: """
                    CREATE TABLE spent_refresh_tokens (
                        hash TEXT PRIMARY KEY NOT NULL,
                        session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v3") { db in
            // Group administration: the profile, roles' companions (mutes, nicknames), the
            // version of each member list (see MemberCache), invite links and join requests.
            try db.execute(
                sql: """
                    ALTER TABLE conversations ADD COLUMN description TEXT NOT NULL DEFAULT '';
                    ALTER TABLE conversations ADD COLUMN avatar TEXT;
                    ALTER TABLE conversations ADD COLUMN announcement TEXT;
                    ALTER TABLE conversations ADD COLUMN announcement_by INTEGER;
                    ALTER TABLE conversations ADD COLUMN announcement_at INTEGER;
                    ALTER TABLE conversations ADD COLUMN join_policy TEXT NOT NULL DEFAULT 'open'
                        CHECK (join_policy IN ('open', 'approval', 'invite_only'));
                    ALTER TABLE conversations ADD COLUMN mute_all INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE conversations ADD COLUMN member_limit INTEGER NOT NULL DEFAULT 2000;
                    ALTER TABLE conversations ADD COLUMN owner_id INTEGER;
                    ALTER TABLE conversations ADD COLUMN dissolved_at INTEGER;
                    ALTER TABLE conversations ADD COLUMN members_version INTEGER NOT NULL DEFAULT 0;
                    UPDATE conversations SET owner_id = (
                        SELECT user_id FROM members WHERE conversation_id = conversations.id AND role = 'owner');
                    ALTER TABLE members ADD COLUMN nickname TEXT;
                    ALTER TABLE members ADD COLUMN muted_until INTEGER;

                    CREATE TABLE invite_links (
                        code TEXT PRIMARY KEY NOT NULL,
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        created_by INTEGER NOT NULL REFERENCES users(id),
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER,
                        max_uses INTEGER,
                        uses INTEGER NOT NULL DEFAULT 0,
                        revoked_at INTEGER
                    ) WITHOUT ROWID;
                    CREATE INDEX invite_links_by_conversation ON invite_links(conversation_id);

                    CREATE TABLE join_requests (
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        invite_code TEXT NOT NULL,
                        message TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')),
                        created_at INTEGER NOT NULL,
                        resolved_by INTEGER,
                        resolved_at INTEGER,
                        PRIMARY KEY (conversation_id, user_id)
                    ) WITHOUT ROWID;

                    -- Who left or was removed, and up to which seq they may still read.
                    CREATE TABLE former_members (
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        read_up_to INTEGER NOT NULL,
                        PRIMARY KEY (conversation_id, user_id)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4") { db in
            // Each member's own settings for the conversation (pinned, muted, hidden, draft).
            try db.execute(
                sql: """
                    ALTER TABLE members ADD COLUMN pinned_at INTEGER;
                    ALTER TABLE members ADD COLUMN muted INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE members ADD COLUMN hidden_seq INTEGER;
                    ALTER TABLE members ADD COLUMN draft TEXT NOT NULL DEFAULT '';
                    ALTER TABLE members ADD COLUMN draft_at INTEGER;
                    """)
        }
        migrator.registerMigration("v5") { db in
            // Message actions: quotes, forwards and edits on messages; delivered and cleared
            // watermarks on members; mentions (user 0 is everyone) and per-user deletions.
            try db.execute(
                sql: """
                    ALTER TABLE messages ADD COLUMN reply_to_id INTEGER;
                    ALTER TABLE messages ADD COLUMN quote TEXT;
                    ALTER TABLE messages ADD COLUMN forwarded INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE messages ADD COLUMN edited_at INTEGER;
                    CREATE INDEX messages_by_reply ON messages(reply_to_id) WHERE reply_to_id IS NOT NULL;
                    ALTER TABLE conversations ADD COLUMN everyone_may_mention_all INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE members ADD COLUMN delivered_seq INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE members ADD COLUMN cleared_seq INTEGER;
                    -- The message a message.updated event carries, so that its recall rewrites it.
                    ALTER TABLE user_events ADD COLUMN message_id INTEGER;
                    CREATE INDEX user_events_by_message ON user_events(message_id) WHERE message_id IS NOT NULL;

                    CREATE TABLE mentions (
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL,
                        seq INTEGER NOT NULL,
                        sender_id INTEGER NOT NULL,
                        PRIMARY KEY (conversation_id, user_id, seq)
                    ) WITHOUT ROWID;

                    CREATE TABLE deleted_messages (
                        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (user_id, conversation_id, seq)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v6") { db in
            // A profile's optional details (NULL until given).
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN avatar TEXT;
                    ALTER TABLE users ADD COLUMN gender TEXT;
                    ALTER TABLE users ADD COLUMN birthday TEXT;
                    ALTER TABLE users ADD COLUMN region TEXT;
                    """)
        }
        migrator.registerMigration("v7") { db in
            // Who may find each user how, and the nickname as search compares it.
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN find_by_username TEXT NOT NULL DEFAULT 'everyone';
                    ALTER TABLE users ADD COLUMN find_by_email TEXT NOT NULL DEFAULT 'everyone';
                    ALTER TABLE users ADD COLUMN find_by_phone TEXT NOT NULL DEFAULT 'everyone';
                    ALTER TABLE users ADD COLUMN find_by_nickname TEXT NOT NULL DEFAULT 'everyone';
                    ALTER TABLE users ADD COLUMN nickname_folded TEXT NOT NULL DEFAULT '';
                    """)
            try foldNicknames(db)
        }
        migrator.registerMigration("v8") { db in
            // Friends (a row per side), friend requests (a row per ordered pair) and blocks.
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN add_me TEXT NOT NULL DEFAULT 'approval';
                    ALTER TABLE users ADD COLUMN message_from TEXT NOT NULL DEFAULT 'everyone';
                    CREATE TABLE contacts (
                        owner_id INTEGER NOT NULL REFERENCES users(id),
                        friend_id INTEGER NOT NULL REFERENCES users(id),
                        remark TEXT NOT NULL DEFAULT '',
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (owner_id, friend_id)
                    ) WITHOUT ROWID;
                    CREATE TABLE friend_requests (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        from_id INTEGER NOT NULL REFERENCES users(id),
                        to_id INTEGER NOT NULL REFERENCES users(id),
                        message TEXT NOT NULL,
                        status TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        updated_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        UNIQUE (from_id, to_id)
                    );
                    CREATE INDEX contacts_by_friend ON contacts (friend_id);
                    CREATE INDEX friend_requests_to ON friend_requests (to_id, updated_at);
                    CREATE TABLE blocks (
                        blocker_id INTEGER NOT NULL REFERENCES users(id),
                        blocked_id INTEGER NOT NULL REFERENCES users(id),
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (blocker_id, blocked_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX blocks_by_blocked ON blocks (blocked_id, blocker_id);
                    CREATE TABLE friend_groups (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        owner_id INTEGER NOT NULL REFERENCES users(id),
                        name TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        UNIQUE (owner_id, name)
                    );
                    CREATE TABLE friend_group_members (
                        group_id INTEGER NOT NULL REFERENCES friend_groups(id) ON DELETE CASCADE,
                        friend_id INTEGER NOT NULL REFERENCES users(id),
                        PRIMARY KEY (group_id, friend_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX friend_group_members_by_friend ON friend_group_members (friend_id);
                    """)
        }
        migrator.registerMigration("v9") { db in
            // Presence (who may see it, last seen, which node holds each user's devices, the
            // nodes' heartbeats), notification preferences (JSON, NULL: defaults) and push tokens.
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN presence TEXT NOT NULL DEFAULT 'everyone';
                    ALTER TABLE users ADD COLUMN last_seen_at INTEGER;
                    ALTER TABLE users ADD COLUMN notifications TEXT;
                    CREATE TABLE nodes (id TEXT PRIMARY KEY NOT NULL, seen_at INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE presence (
                        user_id INTEGER NOT NULL REFERENCES users(id),
                        node_id TEXT NOT NULL,
                        since INTEGER NOT NULL,
                        PRIMARY KEY (user_id, node_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX presence_by_node ON presence (node_id);
                    CREATE TABLE push_tokens (
                        session_id INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL REFERENCES users(id),
                        platform TEXT NOT NULL,
                        token TEXT NOT NULL,
                        app_id TEXT NOT NULL,
                        sandbox INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        UNIQUE (platform, token)
                    );
                    CREATE INDEX push_tokens_by_user ON push_tokens (user_id);
                    """)
        }
        migrator.registerMigration("v10") { db in
            // Message search: each message's folded searchable text (rowid = message id) in an
            // FTS5 trigram index, which matches any substring of three characters or more; the
            // text is folded already, so the tokenizer compares exactly. Messages stored before
            // it are indexed in the background from `indexed_below` down (newest first).
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE message_search USING fts5(folded, tokenize = 'trigram case_sensitive 1');
                    CREATE TABLE search_backlog (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        indexed_below INTEGER NOT NULL
                    );
                    INSERT INTO search_backlog (id, indexed_below) SELECT 1, COALESCE(MAX(id), 0) + 1 FROM messages;
                    """)
        }
        migrator.registerMigration("v11") { db in
            // Nicknames fold as message text does (accents too), for finding people, contacts
            // and group members alike.
            try foldNicknames(db)
        }
        migrator.registerMigration("v12") { db in
            // Files: one row per content (by hash), who may send each (claims), which messages
            // show each (references), and uploads in progress with their chunks. A file's grace
            // period before collection begins at `released_at`.
            try db.execute(
                sql: """
                    CREATE TABLE files (
                        id TEXT PRIMARY KEY,
                        sha256 TEXT NOT NULL UNIQUE,
                        size INTEGER NOT NULL,
                        mime_type TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        released_at INTEGER NOT NULL
                    );
                    CREATE TABLE file_claims (
                        file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                        user_id INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (file_id, user_id)
                    );
                    CREATE INDEX file_claims_by_user ON file_claims (user_id);
                    CREATE TABLE file_refs (
                        file_id TEXT NOT NULL,
                        message_id INTEGER NOT NULL,
                        PRIMARY KEY (file_id, message_id)
                    );
                    CREATE INDEX file_refs_by_message ON file_refs (message_id);
                    CREATE TABLE uploads (
                        id TEXT PRIMARY KEY,
                        user_id INTEGER NOT NULL,
                        sha256 TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        mime_type TEXT NOT NULL,
                        name TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        chunk_size INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX uploads_by_user ON uploads (user_id);
                    CREATE INDEX uploads_by_expiry ON uploads (expires_at);
                    CREATE TABLE upload_chunks (
                        upload_id TEXT NOT NULL REFERENCES uploads(id) ON DELETE CASCADE,
                        chunk_start INTEGER NOT NULL,
                        length INTEGER NOT NULL,
                        PRIMARY KEY (upload_id, chunk_start)
                    );
                    CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                    CREATE INDEX users_by_avatar ON users (avatar) WHERE avatar IS NOT NULL;
                    CREATE INDEX conversations_by_avatar ON conversations (avatar) WHERE avatar IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v13") { db in
            // Two-factor login: the TOTP secret, the last step used and the wrong codes
            // counted, and one-time recovery codes kept as hashes.
            try db.execute(
                sql: """
                    CREATE TABLE two_factor (
                        user_id INTEGER PRIMARY KEY,
                        secret TEXT NOT NULL,
                        enabled_at INTEGER,
                        last_step INTEGER NOT NULL DEFAULT -1,
                        failures INTEGER NOT NULL DEFAULT 0,
                        locked_until INTEGER
                    );
                    CREATE TABLE recovery_codes (
                        user_id INTEGER NOT NULL,
                        hash TEXT NOT NULL,
                        used_at INTEGER,
                        PRIMARY KEY (user_id, hash)
                    );
                    """)
        }
        migrator.registerMigration("v14") { db in
            // Each user's security log.
            try db.execute(
                sql: """
                    CREATE TABLE security_events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user_id INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        device TEXT,
                        ip TEXT
                    );
                    CREATE INDEX security_events_by_user ON security_events (user_id, id);
                    """)
        }
        migrator.registerMigration("v15") { db in
            // Verification codes (as HMACs, one pending per user and purpose), when each
            // account's email and phone were verified, and when an account was deleted.
            try db.execute(
                sql: """
                    CREATE TABLE verification_codes (
                        user_id INTEGER NOT NULL,
                        purpose TEXT NOT NULL,
                        destination TEXT NOT NULL,
                        code_hash TEXT NOT NULL,
                        sent_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (user_id, purpose)
                    );
                    ALTER TABLE users ADD COLUMN email_verified_at INTEGER;
                    ALTER TABLE users ADD COLUMN phone_verified_at INTEGER;
                    ALTER TABLE users ADD COLUMN deleted_at INTEGER;
                    """)
        }
        return migrator
    }

    /// Writes each user's nickname as search compares it (``SearchText/fold(_:)``), which no
    /// SQL function matches.
    private static func foldNicknames(_ db: Database) throws {
        for row in try Row.fetchAll(db, sql: "SELECT id, nickname FROM users") {
            try db.execute(
                sql: "UPDATE users SET nickname_folded = ? WHERE id = ?",
                arguments: [SearchText.fold(row["nickname"]), row["id"] as Int64])
        }
    }
}
