import ParleyCore
import ParleyStore
import ParleyStorePostgres
import ParleyStoreSQLite

/// Everything `parley serve` can be told; the defaults run a complete server with nothing
/// else installed.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// Where the SQLite database lives.
    public var dataDirectory = "./parley-data"
    /// A PostgreSQL URL (`postgres://user@host:5432/db`); when set, it is the store instead of
    /// SQLite, and several nodes may share it.
    public var databaseURL: String?
    /// A PostgreSQL schema to use instead of `public` (isolates test runs in one database).
    public var databaseSchema: String?
    /// The most PostgreSQL connections a node's pool opens for requests (each node also holds
    /// two of the fan-out's own).
    public var databaseConnections = PostgresStore.defaultConnections
    public var durability = SQLiteStore.Durability.full
    /// How long SQLite's group commit waits to gather concurrent writes into one transaction.
    public var commitDelay = SQLiteStore.defaultCommitDelay
    /// PEM files; TLS is on when both are set.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// A socket that sends nothing (not even `ping`) for this long is closed with 4004.
    public var heartbeatTimeout: Duration = .seconds(60)
    /// A socket must authenticate within this long or is closed with 4001.
    public var authenticationTimeout: Duration = .seconds(10)
    /// Frames a connection may have waiting to be written before it is closed with 4003.
    public var outboundQueueLimit = 1024
    /// bcrypt work factor for password hashes (2^cost rounds).
    public var bcryptCost: UInt8 = 12
    public var accessTokenLifetime: Duration = .seconds(3600)
    public var refreshTokenLifetime: Duration = .seconds(30 * 24 * 3600)
    /// Failed logins for one account before it is locked for `loginLockout`.
    public var maxFailedLogins = 5
    /// Failed logins from one IP address (any accounts) before it is refused for `loginLockout`;
    /// 0 turns this off (behind a reverse proxy every client has the proxy's address).
    public var maxFailedLoginsPerIP = 20
    public var loginLockout: Duration = .seconds(15 * 60)
    /// A WebSocket write that cannot complete within this long (the peer stopped reading)
    /// gets the socket closed.
    public var writeTimeout: Duration = .seconds(30)
    /// An HTTP connection that receives nothing for this long is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// An HTTP request must arrive completely (first byte to response) within this long.
    public var requestTimeout: Duration = .seconds(30)
    /// Open connections one IP address may have; more are closed at once. 0: no limit
    /// (behind a reverse proxy, where every connection comes from the proxy).
    public var maxConnectionsPerIP = 1_000
    /// A file of words not allowed in usernames, nicknames, signatures, group names and
    /// descriptions, group nicknames, friend-request messages and remarks (`--sensitive-words`), one per line; reloaded on
    /// SIGHUP. None by default.
    public var sensitiveWordsPath: String?
    /// The member limit new groups get (`--max-group-members`; default ``Limits/maxGroupMembers``).
    public var maxGroupMembers = Limits.maxGroupMembers
    /// How long senders may recall and edit their own messages (`--recall-window`,
    /// `--edit-window`).
    public var messageWindows = MessageWindows.defaults
    /// How long a friend request stays pending (`--friend-request-ttl`, in days).
    public var friendRequestTTLMs = ContactLimits.defaultRequestTTLMs
    /// How often a node writes which of its users connected or left, and so how long a
    /// reconnection may take without anyone seeing the user go offline.
    public var presenceInterval: Duration = .seconds(1)
    /// A node not heard from for this long is taken as gone: its users with no device
    /// elsewhere go offline (last seen at its last heartbeat). Nodes heartbeat three times
    /// as often; their clocks must agree to within a few seconds (NTP), since a node's last
    /// heartbeat, written with its clock, is compared with the sweeping node's.
    public var nodeTimeout: Duration = .seconds(30)
    /// Apple's push service, when its credentials are given; otherwise pushes are logged.
    public var apns: APNsConfiguration?
    /// Where files go and their limits.
    public var files = FileConfiguration()
    /// Origins (`https://chat.example.com`) whose browser pages may call the API (CORS);
    /// none by default.
    public var corsOrigins: [String] = []
    /// How many requests of each kind an address or account may make (`--rate-limit`).
    public var rateLimits = RateLimits.defaults
    /// Where verification codes for emails go: `log` (the default), `smtp://…`, `smtps://…`,
    /// or an `https://` webhook (`--email-codes`).
    public var emailCodes = "log"
    /// Where verification codes for phones go: `log` (the default) or an `https://` webhook
    /// such as an SMS gateway's (`--phone-codes`).
    public var phoneCodes = "log"

    public init() {}

    /// Whether listeners use TLS.
    public var usesTLS: Bool { tlsCertificatePath != nil && tlsKeyPath != nil }
}
