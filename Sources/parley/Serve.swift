import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ParleyCore
import ParleyServer
import ParleyStoreSQLite

/// `parley serve`: runs a server with embedded SQLite storage. Every option can also come
/// from an environment variable (named in its help); a flag beats the environment.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the Parley server.")

    @Option(help: "Address to listen on (PARLEY_HOST). Default 127.0.0.1.")
    var host: String?

    @Option(help: "Port to listen on (PARLEY_PORT). Default 8080.")
    var port: Int?

    @Option(help: "Directory holding the SQLite database (PARLEY_DATA_DIR). Default ./parley-data.")
    var dataDir: String?

    @Option(
        help:
            "PostgreSQL URL, e.g. postgres://parley@db:5432/parley (PARLEY_DATABASE_URL). Default: SQLite in --data-dir."
    )
    var database: String?

    @Option(
        help:
            "The most PostgreSQL connections this node's pool opens, 1-1000 (PARLEY_DATABASE_CONNECTIONS); the node holds two more for hearing other nodes. Default 16."
    )
    var databaseConnections: Int?

    @Option(help: "Commit durability, full or normal (PARLEY_SYNC). Default full: fsync on every commit.")
    var sync: String?

    @Option(
        help:
            "Microseconds SQLite's group commit waits, while writers are concurrent, to gather more writes into one commit, 0-100000 (PARLEY_COMMIT_DELAY); 0 turns it off. A write waits only when the transaction before it held more than one write. Default 1000."
    )
    var commitDelay: Int?

    @Option(help: "TLS certificate chain, PEM (PARLEY_TLS_CERT). TLS is on when a key is given too.")
    var tlsCert: String?

    @Option(help: "TLS private key, PEM (PARLEY_TLS_KEY).")
    var tlsKey: String?

    @Option(help: "Seconds without any frame before a socket is closed (PARLEY_HEARTBEAT_TIMEOUT). Default 60.")
    var heartbeatTimeout: Int?

    @Option(
        help:
            "Seconds a WebSocket write may take before the socket of a peer that stopped reading is closed (PARLEY_WRITE_TIMEOUT). Default 30."
    )
    var writeTimeout: Int?

    @Option(
        help: "Seconds an HTTP connection may receive nothing before it is closed (PARLEY_IDLE_TIMEOUT). Default 60.")
    var idleTimeout: Int?

    @Option(
        help:
            "Seconds from an HTTP request's first byte to its answer before the connection is closed (PARLEY_REQUEST_TIMEOUT). Default 30."
    )
    var requestTimeout: Int?

    @Option(
        help:
            "Open connections per IP address; more are closed at once, 0 for no limit, e.g. behind a reverse proxy (PARLEY_MAX_CONNECTIONS_PER_IP). Default 1000."
    )
    var maxConnectionsPerIp: Int?

    @Option(
        help:
            "An origin whose browser pages may call the API, e.g. https://chat.example.com; repeat for several (PARLEY_CORS_ORIGINS, comma-separated). Default: none."
    )
    var corsOrigin: [String] = []

    @Option(
        help:
            "A rate limit, NAME=BURST,COUNT/UNIT (units s, min, h, d) or NAME=off, or 'off' for none; repeat for several (PARLEY_RATE_LIMITS, separated by ;). Names: \(RateLimits.Name.allCases.map(\.rawValue).joined(separator: ", ")). Defaults: \(RateLimits.Name.allCases.compactMap { name in RateLimits.defaults[name].map { "\(name.rawValue)=\($0)" } }.joined(separator: " "))."
    )
    var rateLimit: [String] = []

    @Option(
        help:
            "Where verification codes for emails go: log, smtp://user:pass@host:587?from=addr[&ca=file], smtps://…, or an https:// webhook (PARLEY_EMAIL_CODES; the SMTP password may be in PARLEY_SMTP_PASSWORD, a webhook's signing secret in PARLEY_CODE_WEBHOOK_SECRET). Default log."
    )
    var emailCodes: String?

    @Option(
        help:
            "Where verification codes for phones go: log or an https:// webhook, e.g. an SMS gateway (PARLEY_PHONE_CODES). Default log."
    )
    var phoneCodes: String?

    @Option(help: "The member limit of new groups (PARLEY_MAX_GROUP_MEMBERS). Default 2000.")
    var maxGroupMembers: Int?

    @Option(help: "Seconds a sender may recall their own message (PARLEY_RECALL_WINDOW). Default 120.")
    var recallWindow: Int?

    @Option(help: "Seconds a sender may edit their own text (PARLEY_EDIT_WINDOW). Default 900.")
    var editWindow: Int?

    @Option(help: "Days a friend request stays pending (PARLEY_FRIEND_REQUEST_TTL). Default 30.")
    var friendRequestTtl: Int?

    @Option(
        help:
            "A UTF-8 file of words not allowed in usernames, nicknames, signatures, group names and descriptions, group nicknames, friend-request messages and remarks, one per line, '#' for comments; reloaded on SIGHUP (PARLEY_SENSITIVE_WORDS). Default: none."
    )
    var sensitiveWords: String?

    @Option(help: "Failed logins before an account is locked for 15 minutes (PARLEY_MAX_FAILED_LOGINS). Default 5.")
    var maxFailedLogins: Int?

    @Option(
        help:
            "Failed logins from one IP address before it is refused for the lockout; 0 turns it off, e.g. behind a reverse proxy (PARLEY_MAX_FAILED_LOGINS_PER_IP). Default 20."
    )
    var maxFailedLoginsPerIp: Int?

    @Option(
        help:
            "Minutes an account or address stays locked after too many failed logins (PARLEY_LOGIN_LOCKOUT). Default 15."
    )
    var loginLockout: Int?

    @Option(
        help: "bcrypt work factor 4-16 (PARLEY_BCRYPT_COST). Default 12; lower only for load tests with many users.")
    var bcryptCost: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error (PARLEY_LOG_LEVEL). Default info.")
    var logLevel: String?

    @Option(
        help:
            "Milliseconds between a node's presence writes, 10-5000: how long a reconnection goes unseen (PARLEY_PRESENCE_INTERVAL). Default 1000."
    )
    var presenceInterval: Int?

    @Option(
        help:
            "Apple push: the .p8 signing key's file (PARLEY_APNS_KEY). With --apns-key-id and --apns-team-id, pushes go to APNs; without, they are logged."
    )
    var apnsKey: String?

    @Option(help: "Apple push: the signing key's id (PARLEY_APNS_KEY_ID).")
    var apnsKeyId: String?

    @Option(help: "Apple push: the developer team id (PARLEY_APNS_TEAM_ID).")
    var apnsTeamId: String?

    @Option(help: "Apple push: the production service's URL (PARLEY_APNS_URL). Default https://api.push.apple.com.")
    var apnsUrl: String?

    @Option(
        help:
            "Apple push: the sandbox service's URL (PARLEY_APNS_SANDBOX_URL). Default https://api.sandbox.push.apple.com."
    )
    var apnsSandboxUrl: String?

    @Option(
        help:
            "Where file contents go (PARLEY_FILES): an S3-compatible object store as s3://BUCKET?endpoint=URL&region=REGION, with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. Default: the data directory's files/."
    )
    var files: String?

    @Option(
        help:
            "The largest file of a kind, as KIND=BYTES (image, voice, video, file); repeat for several (PARLEY_MAX_FILE_SIZE, comma-separated). Defaults: image 20 MiB, voice 10 MiB, video and file 500 MiB."
    )
    var maxFileSize: [String] = []

    @Option(
        help:
            "The file types allowed, comma-separated, as type/subtype or type/* (PARLEY_FILE_TYPES). Default: any."
    )
    var fileTypes: String?

    @Option(help: "The megabytes (MiB) of files one user may hold (PARLEY_FILE_QUOTA). Default 10240.")
    var fileQuota: Int?

    @Option(help: "The longest voice message, in seconds, 1-3600 (PARLEY_MAX_VOICE_SECONDS). Default 60.")
    var maxVoiceSeconds: Int?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration = try configuration(environment: environment)
        let levelName = logLevel ?? environment["PARLEY_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelName) else {
            throw ValidationError("Unknown log level '\(levelName)'.")
        }

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "parley")
        var metadata: Logger.Metadata = [
            "address": "\(configuration.usesTLS ? "https" : "http")://\(configuration.host):\(configuration.port)",
            "storage": "\(configuration.databaseURL == nil ? "sqlite:" + configuration.dataDirectory : "postgres")",
        ]
        // SQLite's own settings; PostgreSQL's server decides these there.
        if configuration.databaseURL == nil {
            metadata["sync"] = "\(configuration.durability.rawValue)"
            metadata["commitDelay"] = "\(configuration.commitDelay)"
        }
        logger.info("Starting Parley", metadata: metadata)
        let app = try await buildApplication(configuration, logger: logger)
        try await app.runService()
        logger.info("Parley stopped")
    }

    /// The server's settings from these flags and `environment` (a flag beats its variable);
    /// a `ValidationError` says which value is wrong, and why.
    func configuration(environment: [String: String]) throws -> ServerConfiguration {
        func setting(_ flag: String?, _ variable: String) -> String? { flag ?? environment[variable] }

        var configuration = ServerConfiguration()
        if let host = setting(host, "PARLEY_HOST") { configuration.host = host }
        if let port = try setting(port.map(String.init), "PARLEY_PORT").map({ try Self.integer($0, "port", 1...65535) })
        {
            configuration.port = port
        }
        if let dataDir = setting(dataDir, "PARLEY_DATA_DIR") { configuration.dataDirectory = dataDir }
        configuration.databaseURL = setting(database, "PARLEY_DATABASE_URL")
        if let sync = setting(sync, "PARLEY_SYNC") {
            guard configuration.databaseURL == nil else {
                throw ValidationError(
                    "--sync (PARLEY_SYNC) sets SQLite's durability; with --database, PostgreSQL's own fsync and synchronous_commit decide it."
                )
            }
            guard let durability = SQLiteStore.Durability(rawValue: sync) else {
                throw ValidationError("--sync must be 'full' or 'normal', not '\(sync)'.")
            }
            configuration.durability = durability
        }
        configuration.tlsCertificatePath = setting(tlsCert, "PARLEY_TLS_CERT")
        configuration.tlsKeyPath = setting(tlsKey, "PARLEY_TLS_KEY")
        if (configuration.tlsCertificatePath == nil) != (configuration.tlsKeyPath == nil) {
            throw ValidationError("TLS needs both --tls-cert and --tls-key.")
        }
        func integer(_ flag: Int?, _ variable: String, _ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            try setting(flag.map(String.init), variable).map { try Self.integer($0, name, range) }
        }
        if let microseconds = try integer(commitDelay, "PARLEY_COMMIT_DELAY", "commit delay", 0...100_000) {
            guard configuration.databaseURL == nil else {
                throw ValidationError(
                    "--commit-delay (PARLEY_COMMIT_DELAY) sets SQLite's group commit; with --database, PostgreSQL's own commit_delay decides it."
                )
            }
            configuration.commitDelay = .microseconds(microseconds)
        }
        if let count = try integer(
            databaseConnections, "PARLEY_DATABASE_CONNECTIONS", "database connection count", 1...1000)
        {
            guard configuration.databaseURL != nil else {
                throw ValidationError(
                    "--database-connections (PARLEY_DATABASE_CONNECTIONS) sizes a PostgreSQL pool; it needs --database."
                )
            }
            configuration.databaseConnections = count
        }
        if let seconds = try integer(heartbeatTimeout, "PARLEY_HEARTBEAT_TIMEOUT", "heartbeat timeout", 2...3600) {
            configuration.heartbeatTimeout = .seconds(seconds)
        }
        if let seconds = try integer(writeTimeout, "PARLEY_WRITE_TIMEOUT", "write timeout", 1...3600) {
            configuration.writeTimeout = .seconds(seconds)
        }
        if let seconds = try integer(idleTimeout, "PARLEY_IDLE_TIMEOUT", "idle timeout", 1...3600) {
            configuration.idleTimeout = .seconds(seconds)
        }
        if let seconds = try integer(requestTimeout, "PARLEY_REQUEST_TIMEOUT", "request timeout", 1...3600) {
            configuration.requestTimeout = .seconds(seconds)
        }
        if let count = try integer(
            maxConnectionsPerIp, "PARLEY_MAX_CONNECTIONS_PER_IP", "connection limit", 0...1_000_000)
        {
            configuration.maxConnectionsPerIP = count
        }
        let origins =
            corsOrigin.isEmpty
            ? (environment["PARLEY_CORS_ORIGINS"] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty } : corsOrigin
        for origin in origins {
            guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil,
                url.path.isEmpty, url.query == nil
            else {
                throw ValidationError("--cors-origin '\(origin)' must be an origin: scheme://host[:port], no path.")
            }
        }
        configuration.corsOrigins = origins
        let limits =
            rateLimit.isEmpty
            ? (environment["PARLEY_RATE_LIMITS"] ?? "").split(separator: ";").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty } : rateLimit
        for limit in limits {
            if limit == "off" {
                configuration.rateLimits = .off
            } else if !configuration.rateLimits.apply(limit) {
                throw ValidationError(
                    "--rate-limit '\(limit)' must be NAME=BURST,COUNT/UNIT (e.g. send=50,10/s) or NAME=off, with NAME one of \(RateLimits.Name.allCases.map(\.rawValue).joined(separator: ", "))."
                )
            }
        }
        if let sender = setting(emailCodes, "PARLEY_EMAIL_CODES") { configuration.emailCodes = sender }
        if let sender = setting(phoneCodes, "PARLEY_PHONE_CODES") { configuration.phoneCodes = sender }
        if let count = try integer(maxGroupMembers, "PARLEY_MAX_GROUP_MEMBERS", "group member limit", 2...100_000) {
            configuration.maxGroupMembers = count
        }
        if let seconds = try integer(recallWindow, "PARLEY_RECALL_WINDOW", "recall window", 0...31_536_000) {
            configuration.messageWindows.recallMs = Int64(seconds) * 1000
        }
        if let seconds = try integer(editWindow, "PARLEY_EDIT_WINDOW", "edit window", 0...31_536_000) {
            configuration.messageWindows.editMs = Int64(seconds) * 1000
        }
        if let days = try integer(friendRequestTtl, "PARLEY_FRIEND_REQUEST_TTL", "friend request lifetime", 1...365) {
            configuration.friendRequestTTLMs = Int64(days) * 24 * 3_600 * 1_000
        }
        configuration.sensitiveWordsPath = setting(sensitiveWords, "PARLEY_SENSITIVE_WORDS").flatMap {
            $0.isEmpty ? nil : $0
        }
        if let count = try integer(maxFailedLogins, "PARLEY_MAX_FAILED_LOGINS", "failed login limit", 1...1_000) {
            configuration.maxFailedLogins = count
        }
        if let count = try integer(
            maxFailedLoginsPerIp, "PARLEY_MAX_FAILED_LOGINS_PER_IP", "per-IP failed login limit", 0...1_000_000)
        {
            configuration.maxFailedLoginsPerIP = count
        }
        if let minutes = try integer(loginLockout, "PARLEY_LOGIN_LOCKOUT", "login lockout", 1...1_440) {
            configuration.loginLockout = .seconds(minutes * 60)
        }
        if let cost = try integer(bcryptCost, "PARLEY_BCRYPT_COST", "bcrypt cost", 4...16) {
            configuration.bcryptCost = UInt8(cost)
        }
        if let milliseconds = try integer(
            presenceInterval, "PARLEY_PRESENCE_INTERVAL", "presence interval", 10...5_000)
        {
            configuration.presenceInterval = .milliseconds(milliseconds)
        }
        configuration.apns = try apnsConfiguration(setting)
        try configureFiles(&configuration.files, setting)
        return configuration
    }

    /// The file settings: the store, sizes per kind, allowed types, quota and voice length.
    private func configureFiles(_ files: inout FileConfiguration, _ setting: (String?, String) -> String?) throws {
        files.location = setting(self.files, "PARLEY_FILES").flatMap { $0.isEmpty ? nil : $0 }
        let sizes =
            maxFileSize.isEmpty
            ? (setting(nil, "PARLEY_MAX_FILE_SIZE")?.split(separator: ",").map(String.init) ?? []) : maxFileSize
        for entry in sizes {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, FileRules.kinds.contains(MessageKind(rawValue: parts[0])),
                let bytes = Int64(parts[1]), bytes > 0
            else {
                throw ValidationError(
                    "--max-file-size takes KIND=BYTES, KIND one of image, voice, video and file; not '\(entry)'.")
            }
            files.maxBytes[MessageKind(rawValue: parts[0])] = bytes
        }
        if let types = setting(fileTypes, "PARLEY_FILE_TYPES") {
            let patterns = types.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for pattern in patterns
            where !FileRules.isWellFormedMIMEType(pattern.hasSuffix("/*") ? pattern.dropLast() + "any" : pattern) {
                throw ValidationError("--file-types takes types such as image/png or image/*; not '\(pattern)'.")
            }
            files.allowedTypes = patterns
        }
        if let megabytes = try setting(fileQuota.map(String.init), "PARLEY_FILE_QUOTA").map({
            try Self.integer($0, "file quota", 1...100_000_000)
        }) {
            files.quotaBytes = Int64(megabytes) * FileConfiguration.mebibyte
        }
        if let seconds = try setting(maxVoiceSeconds.map(String.init), "PARLEY_MAX_VOICE_SECONDS").map({
            try Self.integer($0, "voice message length", 1...3_600)
        }) {
            files.maxVoiceDurationMs = Int64(seconds) * 1_000
        }
    }

    /// The APNs settings, all three of key, key id and team id, or none.
    private func apnsConfiguration(_ setting: (String?, String) -> String?) throws -> APNsConfiguration? {
        let key = setting(apnsKey, "PARLEY_APNS_KEY")
        let keyId = setting(apnsKeyId, "PARLEY_APNS_KEY_ID")
        let teamId = setting(apnsTeamId, "PARLEY_APNS_TEAM_ID")
        guard key != nil || keyId != nil || teamId != nil else { return nil }
        guard let key, let keyId, let teamId else {
            throw ValidationError("Apple push needs all of --apns-key, --apns-key-id and --apns-team-id.")
        }
        let pem: String
        do {
            pem = try String(contentsOfFile: key, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read the APNs key '\(key)': \(error.localizedDescription)")
        }
        var configuration = APNsConfiguration(privateKeyPEM: pem, keyId: keyId, teamId: teamId)
        if let url = setting(apnsUrl, "PARLEY_APNS_URL") { configuration.productionURL = url }
        if let url = setting(apnsSandboxUrl, "PARLEY_APNS_SANDBOX_URL") { configuration.sandboxURL = url }
        return configuration
    }

    private static func integer(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ValidationError(
                "The \(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'.")
        }
        return value
    }
}
