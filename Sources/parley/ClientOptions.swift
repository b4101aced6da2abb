import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import ParleyUI

/// Options every client command shares.
struct ClientOptions: ParsableArguments {
    @Option(help: "Server URL (PARLEY_SERVER). Default http://127.0.0.1:8080.")
    var server: String?

    @Option(help: "Where sessions and local stores live (PARLEY_HOME). Default ~/.parley.")
    var home: String?

    @Option(help: "Seconds to wait for the server's answer to a request (PARLEY_TIMEOUT). Default 15.")
    var timeout: Int?

    var serverURL: String {
        let value = server ?? ProcessInfo.processInfo.environment["PARLEY_SERVER"] ?? "http://127.0.0.1:8080"
        return value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    /// `~/.parley/<host_port>`: one folder per server, one store per user inside it.
    var serverDirectory: URL {
        let base =
            home ?? ProcessInfo.processInfo.environment["PARLEY_HOME"]
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".parley").path
        let key = serverURL.replacingOccurrences(of: "://", with: "_").replacingOccurrences(of: ":", with: "_")
            .replacingOccurrences(of: "/", with: "_")
        return URL(fileURLWithPath: base).appendingPathComponent(key)
    }

    /// Seconds one request may wait for its answer.
    var timeoutSeconds: Int {
        timeout ?? ProcessInfo.processInfo.environment["PARLEY_TIMEOUT"].map { Int($0) ?? 0 } ?? 15
    }

    var requestTimeout: Duration { .seconds(timeoutSeconds) }

    func validate() throws {
        guard (1...3600).contains(timeoutSeconds) else {
            throw ValidationError("The timeout (--timeout or PARLEY_TIMEOUT) must be 1 to 3600 seconds.")
        }
    }

    private var currentUserFile: URL { serverDirectory.appendingPathComponent("current") }

    /// The local store of `username` on this server.
    func store(for username: String) throws -> ClientStore {
        let directory = serverDirectory.appendingPathComponent(username.lowercased())
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return try ClientStore(path: directory.appendingPathComponent("client.sqlite").path)
    }

    /// A client on the store of `username`.
    func client(for username: String) throws -> ParleyClient {
        try client(store: store(for: username))
    }

    /// A client on any store (an in-memory one for a login whose user is not known yet).
    func client(store: ClientStore) throws -> ParleyClient {
        var configuration = ClientConfiguration(serverURL: serverURL)
        configuration.deviceName = "parley-cli@\(ProcessInfo.processInfo.hostName)"
        configuration.requestTimeout = requestTimeout
        return try ParleyClient(
            configuration: configuration, store: store, http: AsyncHTTPTransport(timeout: requestTimeout),
            realtime: NIOWebSocketTransport())
    }

    /// The client of the user who last logged in on this server.
    func signedInClient() async throws -> ParleyClient {
        guard
            let username = try? String(contentsOf: currentUserFile, encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines),
            !username.isEmpty
        else {
            throw CLIError("Not logged in to \(serverURL). Run 'parley login <username>' first.")
        }
        let client = try client(for: username)
        guard await client.session.currentUser != nil else {
            throw CLIError("The session of \(username) on \(serverURL) ended. Run 'parley login \(username)'.")
        }
        return client
    }

    func setCurrentUser(_ username: String?) throws {
        if let username {
            try username.write(to: currentUserFile, atomically: true, encoding: .utf8)
        } else {
            try? FileManager.default.removeItem(at: currentUserFile)
        }
    }
}

/// A user-facing failure: printed as one line, exit code 1, no stack trace.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a command body and turns every failure into a ``CLIError`` with a plain sentence.
func userFacing<T>(_ options: ClientOptions, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as ParleyError {
        throw CLIError(error.message)
    } catch let error as TransportError where error.kind == .timedOut {
        throw CLIError(
            "The server at \(options.serverURL) did not answer within \(options.timeoutSeconds) s (--timeout gives it longer)."
        )
    } catch let error as TransportError {
        throw CLIError("Cannot reach the server at \(options.serverURL) (\(error.detail)).")
    } catch let error as CLIError {
        throw error
    } catch is ValidationError {
        throw CLIError("Invalid arguments.")
    }
}

/// Reads a password: from `--password`, else PARLEY_PASSWORD, else the terminal without echo.
func readPassword(_ given: String?, prompt: String = "Password: ") -> String {
    if let given { return given }
    if let fromEnvironment = ProcessInfo.processInfo.environment["PARLEY_PASSWORD"] { return fromEnvironment }
    return readSecret(prompt: prompt)
}

/// Reads a line from the terminal without echo (a password, a code).
func readSecret(prompt: String) -> String {
    guard let raw = getpass(prompt) else { return "" }
    return String(cString: raw)
}

/// `given`, or a new password asked twice (they must match).
func readNewPassword(_ given: String?) throws -> String {
    if let given { return given }
    let first = readSecret(prompt: "New password: ")
    guard readSecret(prompt: "New password again: ") == first else {
        throw CLIError("The two new passwords differ; nothing changed.")
    }
    return first
}

/// `12:04` for a message time.
func clock(_ milliseconds: Int64) -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "HH:mm"
    return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
}

/// Finds the conversation a user means: a numeric id, a group by name, or a username
/// (whose direct conversation is opened, created if needed).
func resolveConversation(_ name: String, client: ParleyClient) async throws -> ConversationSummary {
    await client.catchUp()
    if let id = Int64(name), let conversation = try client.store.conversation(ConversationID(id)) {
        return conversation
    }
    let groups = try client.store.conversations().filter {
        $0.kind == .group && $0.name?.lowercased() == name.lowercased()
    }
    if groups.count == 1 { return groups[0] }
    if groups.count > 1 {
        throw CLIError(
            "Several groups are called '\(name)': use an id (\(groups.map { "\($0.id)" }.joined(separator: ", "))).")
    }
    return try await client.conversations.openDirect(
        withUsername: name.hasPrefix("@") ? String(name.dropFirst()) : name)
}

/// A group the user is in, by id or name (any case); unlike ``resolveConversation`` it never
/// opens a direct conversation.
func resolveGroup(_ name: String, client: ParleyClient) async throws -> ConversationSummary {
    await client.catchUp()
    let groups = try client.store.conversations().filter { $0.kind == .group }
    if let id = Int64(name), let group = groups.first(where: { $0.id == ConversationID(id) }) { return group }
    let named = groups.filter { $0.name?.lowercased() == name.lowercased() }
    if named.count > 1 {
        throw CLIError(
            "Several groups are called '\(name)': use an id (\(named.map { "\($0.id)" }.joined(separator: ", "))).")
    }
    guard let group = named.first else { throw CLIError("You are in no group called '\(name)'.") }
    return group
}

/// A short title for a conversation.
func title(_ conversation: ConversationSummary, client: ParleyClient) async -> String {
    if conversation.kind == .group { return "#\(conversation.name ?? "group \(conversation.id)")" }
    guard let peer = conversation.peerId, let user = try? await client.conversations.user(peer) else {
        return "direct \(conversation.id)"
    }
    return "@\(user.username)"
}

/// A user's username, or `user <id>` when it cannot be found.
func username(_ id: UserID, client: ParleyClient) async -> String {
    (try? await client.conversations.user(id).username) ?? "user \(id)"
}

/// The text of a message for a terminal, with the usernames a system notice or a recall
/// mentions.
func render(_ content: MessageContent, client: ParleyClient) async -> String {
    var ids: [UserID] = []
    switch content {
    case .system(let notice): ids = [notice.actorId].compactMap({ $0 }) + notice.userIds
    case .recalled(let by): ids = [by]
    default: return render(content)
    }
    var names: [UserID: String] = [:]
    for id in ids { names[id] = await username(id, client: client) }
    return render(content, names: names)
}

/// A message for a terminal: its content with what it quotes, and its forwarded and edited
/// marks.
func render(_ message: Message, client: ParleyClient) async -> String {
    var text = await render(message.typedContent, client: client)
    if let quote = message.quote {
        let quoted = quote.kind == .recalled ? "recalled message" : quote.text ?? "[\(quote.kind.rawValue)]"
        text = "↪ \(await username(quote.senderId, client: client)): \(quoted) — \(text)"
    }
    if message.isForwarded { text = "[forwarded] " + text }
    if message.editedAt != nil { text += " (edited)" }
    return text
}

/// The text of a message for a terminal; `names` are the usernames a notice may mention.
func render(_ content: MessageContent, names: [UserID: String] = [:]) -> String {
    switch content {
    case .text(let text, _): text
    case .reply(let text, _, _): text
    case .image(_, let width, let height, _): "[image \(width)×\(height)]"
    case .voice(_, let duration): "[voice \(duration / 1000)s]"
    case .video(_, let duration, _, _, _, _): "[video \(duration / 1000)s]"
    case .file(_, let name, let size): "[file \(name), \(size) bytes]"
    case .sticker(let pack, let sticker): "[sticker \(pack)/\(sticker)]"
    case .location(let latitude, let longitude, let name): "[location \(name ?? "") \(latitude),\(longitude)]"
    case .system(let notice): "* " + NoticeText.describe(notice) { names[$0] ?? "user \($0)" }
    case .recalled(let by): "* \(names[by] ?? "user \(by)") recalled a message"
    case .deleted: "* (deleted)"
    // A kind this version cannot show, or a known one its checks refuse (a text too long,
    // failed in the outbox): its text when it has one.
    case .unsupported(let kind, let content):
        content.objectValue?["text"]?.stringValue ?? "[unsupported message: \(kind)]"
    }
}
