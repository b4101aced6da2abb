import Logging
import ParleyCore
import PostgresNIO

/// The PostgreSQL schema, by numbered migrations applied under an advisory lock so that
/// several nodes starting at once apply each exactly once. Same invariants as SQLite's.
enum PostgresSchema {
    /// The write lock of one schema: stores in different schemas of one database (isolated
    /// test runs) do not serialise each other.
    static func writeLock(schema: String?) -> Int64 { lock(schema ?? "public") }

    /// The first key of the gate locks of one schema: each versioned write holds
    /// `(gate, its backend's pid)` until it ends, so a sync can wait for the writes running
    /// when it read the version sequence (``PostgresStore/settledVersion()``). Positive, as
    /// `pg_locks` shows it.
    static func gateLock(schema: String?) -> Int64 { lock("write gate of " + (schema ?? "public")) & 0x3fff_ffff }

    /// The lock presence writes take: they are serialised among themselves, not with the
    /// versioned writes (messages) that take the write lock.
    static func presenceLock(schema: String?) -> Int64 { lock("presence of " + (schema ?? "public")) }

    /// The migration lock of one schema: nodes starting at once on one schema migrate it in
    /// turn, while stores of other schemas (test runs starting by the dozen) do not wait.
    static func migrationLock(schema: String?) -> Int64 { lock("migrations of " + (schema ?? "public")) }

    /// A migration's statements and its row in `parley_migrations`, as one statement: a `DO`
    /// block that runs each verbatim with `EXECUTE`. A fresh schema then takes one round trip
    /// per migration instead of one per statement (about 120), which counts where dozens of
    /// nodes, or of test servers, migrate at once.
    static func block(_ statements: [String], recording version: Int) -> String {
        let quote = "$parley_statement$"
        let block = "$parley_migration$"
        let executes = statements.map { statement in
            precondition(
                !statement.contains(quote) && !statement.contains(block), "A migration statement contains a quote tag.")
            return "EXECUTE \(quote)\(statement)\(quote);"
        }
        return """
            DO \(block) BEGIN
            \(executes.joined(separator: "\n"))
            INSERT INTO parley_migrations (version) VALUES (\(version));
            END \(block)
            """
    }

    /// An advisory lock id for `name` (FNV-1a).
    private static func lock(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    static let migrations: [(version: Int, sql: [String])] = [
        (
            1,
            [
                "CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
                "INSERT INTO counters (name, value) VALUES ('change_version', 0)",
                """
                CREATE TABLE users (
                    id BIGSERIAL PRIMARY KEY, username TEXT NOT NULL, username_key TEXT NOT NULL UNIQUE,
                    email TEXT UNIQUE, phone TEXT UNIQUE, password_hash TEXT NOT NULL, nickname TEXT NOT NULL,
                    signature TEXT NOT NULL DEFAULT '', event_seq BIGINT NOT NULL DEFAULT 0, created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE sessions (
                    id BIGSERIAL PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    device TEXT NOT NULL, ip TEXT NOT NULL, created_at BIGINT NOT NULL, last_used_at BIGINT NOT NULL,
                    revoked_at BIGINT, access_hash TEXT NOT NULL UNIQUE, access_expires_at BIGINT NOT NULL,
                    refresh_hash TEXT NOT NULL UNIQUE, refresh_expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX sessions_by_user ON sessions(user_id)",
                """
                CREATE TABLE conversations (
                    id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('direct', 'group')), name TEXT,
                    direct_key TEXT UNIQUE, max_seq BIGINT NOT NULL DEFAULT 0 CHECK (max_seq >= 0),
                    member_count BIGINT NOT NULL DEFAULT 0, version BIGINT NOT NULL, created_at BIGINT NOT NULL,
                    last_activity_at BIGINT NOT NULL, CHECK ((kind = 'direct') = (direct_key IS NOT NULL)))
                """,
                """
                CREATE TABLE members (
                    conversation_id BIGINT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
                    read_seq BIGINT NOT NULL DEFAULT 0 CHECK (read_seq >= 0), version BIGINT NOT NULL,
                    joined_at BIGINT NOT NULL, PRIMARY KEY (conversation_id, user_id))
                """,
                "CREATE INDEX members_by_user ON members(user_id)",
                """
                CREATE TABLE messages (
                    id BIGSERIAL PRIMARY KEY, conversation_id BIGINT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    seq BIGINT NOT NULL CHECK (seq >= 1), sender_id BIGINT NOT NULL REFERENCES users(id),
                    client_msg_id TEXT NOT NULL, kind TEXT NOT NULL, content TEXT NOT NULL, sent_at BIGINT NOT NULL,
                    UNIQUE (conversation_id, seq), UNIQUE (sender_id, client_msg_id))
                """,
                """
                CREATE TABLE user_events (
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE, seq BIGINT NOT NULL CHECK (seq >= 1),
                    body TEXT NOT NULL, PRIMARY KEY (user_id, seq))
                """,
            ]
        ),
        (
            version: 2,
            sql: [
                // Refresh tokens already rotated away: presenting one again revokes its session.
                """
                CREATE TABLE spent_refresh_tokens (
                    hash TEXT PRIMARY KEY, session_id BIGINT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE)
                """
            ]
        ),
        (
            version: 3,
            sql: [
                // Group administration: the profile, mutes and nicknames, the version of each
                // member list (see MemberCache), invite links and join requests.
                """
                ALTER TABLE conversations ADD COLUMN description TEXT NOT NULL DEFAULT '',
                    ADD COLUMN avatar TEXT, ADD COLUMN announcement TEXT, ADD COLUMN announcement_by BIGINT,
                    ADD COLUMN announcement_at BIGINT,
                    ADD COLUMN join_policy TEXT NOT NULL DEFAULT 'open'
                        CHECK (join_policy IN ('open', 'approval', 'invite_only')),
                    ADD COLUMN mute_all BOOLEAN NOT NULL DEFAULT FALSE,
                    ADD COLUMN member_limit BIGINT NOT NULL DEFAULT 2000, ADD COLUMN owner_id BIGINT,
                    ADD COLUMN dissolved_at BIGINT, ADD COLUMN members_version BIGINT NOT NULL DEFAULT 0
                """,
                """
                UPDATE conversations c SET owner_id = m.user_id FROM members m
                WHERE m.conversation_id = c.id AND m.role = 'owner'
                """,
                "ALTER TABLE members ADD COLUMN nickname TEXT, ADD COLUMN muted_until BIGINT",
                """
                CREATE TABLE invite_links (
                    code TEXT PRIMARY KEY,
                    conversation_id BIGINT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    created_by BIGINT NOT NULL REFERENCES users(id), created_at BIGINT NOT NULL, expires_at BIGINT,
                    max_uses BIGINT, uses BIGINT NOT NULL DEFAULT 0, revoked_at BIGINT)
                """,
                "CREATE INDEX invite_links_by_conversation ON invite_links(conversation_id)",
                """
                CREATE TABLE join_requests (
                    conversation_id BIGINT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE, invite_code TEXT NOT NULL,
                    message TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')),
                    created_at BIGINT NOT NULL, resolved_by BIGINT, resolved_at BIGINT,
                    PRIMARY KEY (conversation_id, user_id))
                """,
                // Who left or was removed, and up to which seq they may still read.
                """
                CREATE TABLE former_members (
                    conversation_id BIGINT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE, read_up_to BIGINT NOT NULL,
                    PRIMARY KEY (conversation_id, user_id))
                """,
            ]
        ),
        (
            version: 4,
            sql: [
                // Each member's own settings for the conversation (pinned, muted, hidden, draft).
                """
                ALTER TABLE members ADD COLUMN pinned_at BIGINT, ADD COLUMN muted BOOLEAN NOT NULL DEFAULT FALSE,
                    ADD COLUMN hidden_seq BIGINT, ADD COLUMN draft TEXT NOT NULL DEFAULT '', ADD COLUMN draft_at BIGINT
                """
            ]
        ),
        (
            version: 5,
            sql: [
                // Message actions: quotes, forwards and edits on messages; delivered and cleared
                // watermarks on members; mentions (user 0 is everyone) and per-user deletions.
                """
                ALTER TABLE messages ADD COLUMN reply_to_id BIGINT, ADD COLUMN quote TEXT,
                    ADD COLUMN forwarded BOOLEAN NOT NULL DEFAULT FALSE, ADD COLUMN edited_at BIGINT
                """,
                "CREATE INDEX messages_by_reply ON messages(reply_to_id) WHERE reply_to_id IS NOT NULL",
                "ALTER TABLE members ADD COLUMN delivered_seq BIGINT NOT NULL DEFAULT 0, ADD COLUMN cleared_seq BIGINT",
                "ALTER TABLE conversations ADD COLUMN everyone_may_mention_all BOOLEAN NOT NULL DEFAULT FALSE",
                // The message a message.updated event carries, so that its recall rewrites it.
                "ALTER TABLE user_events ADD COLUMN message_id BIGINT",
                "CREATE INDEX user_events_by_message ON user_events(message_id) WHERE message_id IS NOT NULL",
                """
                CREATE TABLE mentions (
                    conversation_id BIGINT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    user_id BIGINT NOT NULL, seq BIGINT NOT NULL, sender_id BIGINT NOT NULL,
                    PRIMARY KEY (conversation_id, user_id, seq))
                """,
                """
                CREATE TABLE deleted_messages (
                    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    conversation_id BIGINT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    seq BIGINT NOT NULL, PRIMARY KEY (user_id, conversation_id, seq))
                """,
            ]
        ),
        (
            version: 6,
            sql: [
                // Who joined or left at each members_version, so that a node reads a conversation's
                // members as they were when a message was sent even after they changed.
                """
                CREATE TABLE member_changes (
                    conversation_id BIGINT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                    members_version BIGINT NOT NULL, user_id BIGINT NOT NULL, joined BOOLEAN NOT NULL,
                    PRIMARY KEY (conversation_id, members_version, user_id))
                """
            ]
        ),
        (
            version: 7,
            sql: [
                // A profile's optional details (NULL until given).
                "ALTER TABLE users ADD COLUMN avatar TEXT, ADD COLUMN gender TEXT, ADD COLUMN birthday TEXT, ADD COLUMN region TEXT"
            ]
        ),
        (
            version: 8,
            sql: [
                // Who may find each user how, and the nickname as search compares it (filled
                // for the users already stored by `fills[8]`).
                """
                ALTER TABLE users ADD COLUMN find_by_username TEXT NOT NULL DEFAULT 'everyone',
                    ADD COLUMN find_by_email TEXT NOT NULL DEFAULT 'everyone',
                    ADD COLUMN find_by_phone TEXT NOT NULL DEFAULT 'everyone',
                    ADD COLUMN find_by_nickname TEXT NOT NULL DEFAULT 'everyone',
                    ADD COLUMN nickname_folded TEXT NOT NULL DEFAULT ''
                """
            ]
        ),
        (
            version: 9,
            sql: [
                // Friends (a row per side), friend requests (a row per ordered pair) and blocks.
                """
                ALTER TABLE users ADD COLUMN add_me TEXT NOT NULL DEFAULT 'approval',
                    ADD COLUMN message_from TEXT NOT NULL DEFAULT 'everyone'
                """,
                """
                CREATE TABLE contacts (
                    owner_id BIGINT NOT NULL REFERENCES users(id), friend_id BIGINT NOT NULL REFERENCES users(id),
                    remark TEXT NOT NULL DEFAULT '', created_at BIGINT NOT NULL, PRIMARY KEY (owner_id, friend_id))
                """,
                """
                CREATE TABLE friend_requests (
                    id BIGSERIAL PRIMARY KEY, from_id BIGINT NOT NULL REFERENCES users(id),
                    to_id BIGINT NOT NULL REFERENCES users(id), message TEXT NOT NULL, status TEXT NOT NULL,
                    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                    UNIQUE (from_id, to_id))
                """,
                "CREATE INDEX contacts_by_friend ON contacts (friend_id)",
                "CREATE INDEX friend_requests_to ON friend_requests (to_id, updated_at)",
                """
                CREATE TABLE blocks (
                    blocker_id BIGINT NOT NULL REFERENCES users(id), blocked_id BIGINT NOT NULL REFERENCES users(id),
                    created_at BIGINT NOT NULL, PRIMARY KEY (blocker_id, blocked_id))
                """,
                "CREATE INDEX blocks_by_blocked ON blocks (blocked_id, blocker_id)",
                """
                CREATE TABLE friend_groups (
                    id BIGSERIAL PRIMARY KEY, owner_id BIGINT NOT NULL REFERENCES users(id), name TEXT NOT NULL,
                    created_at BIGINT NOT NULL, UNIQUE (owner_id, name))
                """,
                """
                CREATE TABLE friend_group_members (
                    group_id BIGINT NOT NULL REFERENCES friend_groups(id) ON DELETE CASCADE,
                    friend_id BIGINT NOT NULL REFERENCES users(id), PRIMARY KEY (group_id, friend_id))
                """,
                "CREATE INDEX friend_group_members_by_friend ON friend_group_members (friend_id)",
            ]
        ),
        (
            version: 10,
            sql: [
                // Presence (who may see it, last seen, which node holds each user's devices, the
                // nodes' heartbeats), notification preferences (JSON, NULL: defaults) and push tokens.
                """
                ALTER TABLE users ADD COLUMN presence TEXT NOT NULL DEFAULT 'everyone',
                    ADD COLUMN last_seen_at BIGINT, ADD COLUMN notifications TEXT
                """,
                "CREATE TABLE nodes (id TEXT PRIMARY KEY, seen_at BIGINT NOT NULL)",
                """
                CREATE TABLE presence (
                    user_id BIGINT NOT NULL REFERENCES users(id), node_id TEXT NOT NULL, since BIGINT NOT NULL,
                    PRIMARY KEY (user_id, node_id))
                """,
                "CREATE INDEX presence_by_node ON presence (node_id)",
                """
                CREATE TABLE push_tokens (
                    session_id BIGINT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
                    user_id BIGINT NOT NULL REFERENCES users(id), platform TEXT NOT NULL, token TEXT NOT NULL,
                    app_id TEXT NOT NULL, sandbox BOOLEAN NOT NULL, created_at BIGINT NOT NULL,
                    UNIQUE (platform, token))
                """,
                "CREATE INDEX push_tokens_by_user ON push_tokens (user_id)",
            ]
        ),
        (
            version: 11,
            sql: [
                // Message search: each message's folded searchable text, with a pg_trgm GIN
                // index (added by the fill below when the extension is available). Messages
                // stored before it are indexed in the background from `indexed_below` down.
                """
                CREATE TABLE message_text (
                    message_id BIGINT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE, folded TEXT NOT NULL)
                """,
                """
                CREATE TABLE search_backlog (id INT PRIMARY KEY CHECK (id = 1), indexed_below BIGINT NOT NULL)
                """,
                "INSERT INTO search_backlog (id, indexed_below) SELECT 1, COALESCE(MAX(id), 0) + 1 FROM messages",
            ]
        ),
        (
            version: 12,
            sql: []
        ),
        (
            version: 13,
            sql: [
                // Files: one row per content (by hash), who may send each (claims), which
                // messages show each (references), and uploads in progress with their chunks. A
                // file's grace period before collection begins at `released_at`.
                """
                CREATE TABLE files (
                    id TEXT PRIMARY KEY, sha256 TEXT NOT NULL UNIQUE, size BIGINT NOT NULL, mime_type TEXT NOT NULL,
                    created_at BIGINT NOT NULL, released_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE file_claims (
                    file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE, user_id BIGINT NOT NULL,
                    created_at BIGINT NOT NULL, PRIMARY KEY (file_id, user_id))
                """,
                "CREATE INDEX file_claims_by_user ON file_claims (user_id)",
                """
                CREATE TABLE file_refs (
                    file_id TEXT NOT NULL REFERENCES files(id), message_id BIGINT NOT NULL,
                    PRIMARY KEY (file_id, message_id))
                """,
                "CREATE INDEX file_refs_by_message ON file_refs (message_id)",
                """
                CREATE TABLE uploads (
                    id TEXT PRIMARY KEY, user_id BIGINT NOT NULL, sha256 TEXT NOT NULL, size BIGINT NOT NULL,
                    mime_type TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, chunk_size BIGINT NOT NULL,
                    created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX uploads_by_user ON uploads (user_id)",
                "CREATE INDEX uploads_by_expiry ON uploads (expires_at)",
                """
                CREATE TABLE upload_chunks (
                    upload_id TEXT NOT NULL REFERENCES uploads(id) ON DELETE CASCADE, chunk_start BIGINT NOT NULL,
                    length BIGINT NOT NULL, PRIMARY KEY (upload_id, chunk_start))
                """,
                "CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
                "CREATE INDEX users_by_avatar ON users (avatar) WHERE avatar IS NOT NULL",
                "CREATE INDEX conversations_by_avatar ON conversations (avatar) WHERE avatar IS NOT NULL",
            ]
        ),
        (
            version: 14,
            sql: [
                // Two-factor login: the TOTP secret, the last step used and the wrong codes
                // counted, and one-time recovery codes kept as hashes.
                """
                CREATE TABLE two_factor (
                    user_id BIGINT PRIMARY KEY, secret TEXT NOT NULL, enabled_at BIGINT,
                    last_step BIGINT NOT NULL DEFAULT -1, failures INT NOT NULL DEFAULT 0, locked_until BIGINT)
                """,
                """
                CREATE TABLE recovery_codes (
                    user_id BIGINT NOT NULL, hash TEXT NOT NULL, used_at BIGINT, PRIMARY KEY (user_id, hash))
                """,
            ]
        ),
        (
            version: 15,
            sql: [
                // Each user's security log.
                """
                CREATE TABLE security_events (
                    id BIGSERIAL PRIMARY KEY, user_id BIGINT NOT NULL, kind TEXT NOT NULL, at BIGINT NOT NULL,
                    device TEXT, ip TEXT)
                """,
                "CREATE INDEX security_events_by_user ON security_events (user_id, id)",
            ]
        ),
        (
            version: 16,
            sql: [
                // Verification codes (as HMACs, one pending per user and purpose), when each
                // account's email and phone were verified and an account was deleted, and the
                // rate limits' token buckets that every node shares (unlogged: a crash only forgets
                // some).
                """
                CREATE TABLE verification_codes (
                    user_id BIGINT NOT NULL, purpose TEXT NOT NULL, destination TEXT NOT NULL, code_hash TEXT NOT NULL,
                    sent_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, attempts INT NOT NULL DEFAULT 0,
                    PRIMARY KEY (user_id, purpose))
                """,
                """
                ALTER TABLE users ADD COLUMN email_verified_at BIGINT, ADD COLUMN phone_verified_at BIGINT,
                    ADD COLUMN deleted_at BIGINT
                """,
                """
                CREATE UNLOGGED TABLE rate_buckets (
                    key TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, updated_at BIGINT NOT NULL,
                    burst DOUBLE PRECISION NOT NULL, refill DOUBLE PRECISION NOT NULL)
                """,
            ]
        ),
        (
            version: 17,
            sql: [
                // Change versions come from a sequence, which concurrent writes draw from
                // without waiting for each other (a counter row was a lock every write held
                // to its commit); it continues where the counter stopped.
                "CREATE SEQUENCE change_versions",
                """
                SELECT setval('change_versions', GREATEST(value, 1), value > 0) FROM counters
                WHERE name = 'change_version'
                """,
                "DROP TABLE counters",
            ]
        ),
    ]

    /// Steps run before a migration, by version, each in a transaction of its own: what must
    /// not hold a lock until the migration commits.
    static let preparations: [Int: @Sendable (PostgresConnection, Logger) async -> Void] = [
        11: createTrigramExtension
    ]

    /// Steps a migration needs that SQL cannot do, run after its statements in the same
    /// transaction, by version.
    static let fills: [Int: @Sendable (PostgresConnection, Logger) async throws -> Void] = [
        11: { connection, logger in
            // Without pg_trgm (``createTrigramExtension`` warned why), search still works, by
            // scanning the user's messages.
            guard let schema = try await trigramSchema(connection, logger: logger) else { return }
            try await connection.rows("SAVEPOINT trigram", prepared: false, logger: logger)
            do {
                try await connection.rows(
                    "CREATE INDEX message_text_trigrams ON message_text USING gin (folded \"\(schema)\".gin_trgm_ops)",
                    prepared: false, logger: logger)
                try await connection.rows("RELEASE SAVEPOINT trigram", prepared: false, logger: logger)
            } catch {
                try await connection.rows("ROLLBACK TO SAVEPOINT trigram", prepared: false, logger: logger)
                warnWithoutTrigrams(error, logger: logger)
            }
        },
        8: foldNicknames,
        // Nicknames fold as message text does (accents too), for finding people, contacts and
        // group members alike.
        12: foldNicknames,
    ]

    /// Creates pg_trgm where it is missing. The extension is database-wide, so one store at a
    /// time creates it, under a lock held only for that: held to the end of migration 11, it
    /// made every schema migrating at once (nodes, or the test suite's servers by the
    /// hundred) wait in turn for the others' whole migration, and held across round trips it
    /// made them wait for each other's client. Where it cannot be created (no
    /// privilege, no contrib package), it warns, and migration 11 makes no index.
    @Sendable private static func createTrigramExtension(_ connection: PostgresConnection, _ logger: Logger) async {
        do {
            guard try await trigramSchema(connection, logger: logger) == nil else { return }
            // One statement, so that the lock is not held across round trips to a busy client.
            try await connection.rows(
                """
                DO $parley_trigrams$ BEGIN
                PERFORM pg_advisory_xact_lock(\(lock("pg_trgm")));
                CREATE EXTENSION IF NOT EXISTS pg_trgm;
                END $parley_trigrams$
                """, prepared: false, logger: logger)
        } catch {
            warnWithoutTrigrams(error, logger: logger)
        }
    }

    /// Says that search goes without its trigram index, and why.
    private static func warnWithoutTrigrams(_ error: any Error, logger: Logger) {
        logger.warning(
            "pg_trgm is not available: message search scans instead of using an index",
            metadata: ["error": "\(String(reflecting: error))"])
    }

    /// The schema pg_trgm is installed in, or nil where it is not.
    private static func trigramSchema(_ connection: PostgresConnection, logger: Logger) async throws -> String? {
        try await connection.rows(
            """
            SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
            WHERE e.extname = 'pg_trgm'
            """, prepared: false, logger: logger
        ).first?.text("nspname")
    }

    /// Writes each user's nickname as search compares it (``SearchText/fold(_:)``), which no
    /// SQL function matches.
    @Sendable private static func foldNicknames(_ connection: PostgresConnection, _ logger: Logger) async throws {
        for row in try await connection.rows("SELECT id, nickname FROM users", logger: logger) {
            try await connection.rows(
                "UPDATE users SET nickname_folded = $1 WHERE id = $2",
                [.text(SearchText.fold(try row.text("nickname"))), .int(try row.int("id"))], logger: logger)
        }
    }
}
