import Foundation
import ParleyCore

/// The client engine (SPEC 3 and 4): session, connection, sync, hole filling and the
/// outbox, over a local ``ClientStore``. UIs talk to it and to the ``ChatContext``s it hands
/// out; it is the only writer of the store.
///
/// Guarantees: a message is stored once per seq whatever mix of pushes, sync pages and
/// range fetches delivers it; the cursor is stored in the same transaction as what it
/// covers; outbox items are sent in the order they were queued, each with its original
/// `clientMsgId`, so a retry after any failure can never duplicate.
public actor ParleyClient {
    public nonisolated let store: ClientStore
    public nonisolated let api: APIClient
    public nonisolated let connection: ConnectionManager
    public nonisolated let configuration: ClientConfiguration
    private let time: TimeSource
    private let wallClock: @Sendable () -> Int64
    private var session: StoredSession?
    /// The refresh in flight: callers share it, since presenting a refresh token twice
    /// revokes the session (the server takes the second use for a stolen token).
    private var refreshing: Task<String, any Error>?
    private var contexts: [ConversationID: WeakContext] = [:]
    private var flushTask: Task<Void, Never>?
    private var flushRequested = false
    private var maintenance: Task<Void, Never>?

    private struct WeakContext {
        weak var context: ChatContext?
    }

    private static let sessionKey = "session"

    public init(
        configuration: ClientConfiguration, store: ClientStore, http: any HTTPTransport,
        realtime: any RealtimeTransport,
        time: TimeSource = .system,
        wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws {
        self.configuration = configuration
        self.store = store
        self.time = time
        self.wallClock = wallClock
        let api = APIClient(baseURL: configuration.serverURL, http: http)
        self.api = api
        let session = try store.value(Self.sessionKey).map { try JSONText.decode(StoredSession.self, from: $0) }
        self.session = session
        let holder = TokenHolder()
        connection = ConnectionManager(
            url: api.webSocketURL, transport: realtime, configuration: configuration.connection, time: time,
            random: random,
            token: { await holder.client?.accessToken() })
        holder.client = self
    }

    /// Breaks the init-time cycle between the client and its connection's token source.
    private final class TokenHolder: @unchecked Sendable {
        weak var client: ParleyClient?
    }

    // MARK: Account and session

    /// The signed-in user, if any.
    public var currentUser: (id: UserID, username: String)? {
        session.map { (UserID($0.userId), $0.username) }
    }

    /// Creates an account (it does not sign in).
    public func register(_ request: RegisterRequest) async throws -> Account {
        try await api.call(.register, body: request)
    }

    /// Signs in and keeps the session in the store.
    @discardableResult
    public func login(_ login: String, password: String) async throws -> Account {
        let tokens: TokenResponse = try await api.call(
            .login, body: LoginRequest(login: login, password: password, device: configuration.deviceName))
        try keep(tokens)
        try store.saveUser(tokens.account.user)
        return tokens.account
    }

    /// Writes this client's session into another store, which then opens signed in.
    public func copySession(to other: ClientStore) throws {
        guard let session else { throw ParleyError(.unauthenticated, "Not logged in.") }
        try other.setValue(try JSONText.encode(session), for: Self.sessionKey)
    }

    /// Revokes the session on the server (when reachable), stops the connection and forgets the session.
    public func logout() async {
        await connection.stop()
        maintenance?.cancel()
        if let token = session?.accessToken {
            let _: APIClient.Empty? = try? await api.call(.logout, token: token)
        }
        session = nil
        try? store.setValue(nil, for: Self.sessionKey)
    }

    private func keep(_ tokens: TokenResponse) throws {
        let session = StoredSession(
            userId: tokens.account.user.id.rawValue, username: tokens.account.user.username,
            sessionId: tokens.session.id.rawValue, accessToken: tokens.accessToken,
            accessTokenExpiresAt: tokens.accessTokenExpiresAt, refreshToken: tokens.refreshToken)
        self.session = session
        try store.setValue(try JSONText.encode(session), for: Self.sessionKey)
    }

    /// A valid access token, refreshed first when it is about to expire.
    func accessToken() async -> String? {
        guard let session else { return nil }
        if session.accessTokenExpiresAt - wallClock() > 60_000 { return session.accessToken }
        return try? await refresh()
    }

    private func refresh() async throws -> String {
        if let refreshing { return try await refreshing.value }
        guard let session else { throw ParleyError(.unauthenticated, "Not logged in.") }
        let task = Task {
            let tokens: TokenResponse = try await api.call(
                .refresh, body: RefreshRequest(refreshToken: session.refreshToken))
            try keep(tokens)
            return tokens.accessToken
        }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    /// Calls the HTTP API with the session's token, refreshing it once if it was rejected.
    public func http<Response: Decodable>(
        _ endpoint: Endpoint, _ parameters: any CustomStringConvertible & Sendable..., query: [String: String] = [:],
        body: (some Encodable & Sendable)? = Optional<APIClient.Empty>.none, as type: Response.Type = Response.self
    ) async throws -> Response {
        guard let token = await accessToken() else { throw ParleyError(.unauthenticated, "Not logged in.") }
        do {
            return try await api.call(endpoint, parameters, query: query, body: body, token: token)
        } catch let error as ParleyError where error.code == .invalidToken {
            let fresh = try await refresh()
            return try await api.call(endpoint, parameters, query: query, body: body, token: fresh)
        }
    }

    // MARK: Connection

    /// Goes online: connects, and after every (re)connection syncs and flushes the outbox.
    public func connect() async {
        await connection.setHandlers(
            onPush: { [weak self] frame in await self?.handlePush(frame) },
            onConnected: { [weak self] in await self?.resync() })
        await connection.start()
        startMaintenance()
    }

    /// Goes offline without logging out.
    public func disconnect() async {
        await connection.stop()
        maintenance?.cancel()
        maintenance = nil
    }

    /// Tells the connection the network is back, so it retries at once.
    public func networkAvailable() async { await connection.networkAvailable() }

    public func statusUpdates() async -> AsyncStream<ConnectionStatus> { await connection.statusUpdates() }

    /// Once a second while online: retries queued sends (an ack lost in a stalled network
    /// is retried without waiting for the next reconnection) and expires overdue ones.
    private func startMaintenance() {
        maintenance?.cancel()
        let time = self.time
        maintenance = Task { [weak self] in
            while !Task.isCancelled {
                do { try await time.sleep(.seconds(1)) } catch { return }
                await self?.flushOutbox()
            }
        }
    }

    /// A request over the socket when it is up, over HTTP otherwise.
    private func request<Payload: Codable & Sendable, Result: Decodable & Sendable>(
        _ type: ClientFrameType, _ payload: Payload, http endpoint: Endpoint,
        _ parameters: any CustomStringConvertible & Sendable...,
        query: [String: String] = [:], as result: Result.Type = Result.self
    ) async throws -> Result {
        do {
            return try await connection.call(type, payload, as: Result.self, timeout: configuration.requestTimeout)
        } catch let error as TransportError where error.kind == .notConnected {
            let body: Payload? = endpoint.method == "GET" ? nil : payload
            guard let token = await accessToken() else { throw ParleyError(.unauthenticated, "Not logged in.") }
            return try await api.call(endpoint, parameters, query: query, body: body, token: token)
        }
    }

    // MARK: Sync

    /// Brings the store up to date: sync pages from the cursor, then every hole in every
    /// conversation, then the outbox.
    ///
    /// Holes are found from the store (known max seq versus seqs held), not from what this
    /// sync reported: a hole left by an earlier, interrupted fill is found again even though
    /// the cursor has moved past the change that revealed it.
    public func resync() async {
        do {
            var cursor = try store.value(ClientStore.cursorKey)
            while true {
                var query: [String: String] = ["limit": "200"]
                query["cursor"] = cursor
                let response: SyncResponse = try await request(
                    .sync, SyncRequest(cursor: cursor, limit: 200), http: .sync, query: query)
                let inserted = try store.applySync(response)
                await deliver(inserted)
                for conversation in response.conversations {
                    await context(conversation.id)?.othersRead(upTo: conversation.othersReadSeq)
                }
                cursor = response.cursor
                if !response.hasMore { break }
            }
            for (conversationId, maxSeq) in try store.conversationsWithHoles() {
                try await fillHoles(in: conversationId, upTo: maxSeq)
            }
        } catch {
            // The next connection resyncs from the stored cursor; nothing is lost.
        }
        await flushOutbox()
    }

    /// Fetches every seq in `from...maxSeq` this device lacks, by range.
    public func fillHoles(in conversationId: ConversationID, upTo maxSeq: Int64, from lowest: Int64 = 1) async throws {
        guard maxSeq >= lowest else { return }
        for hole in try store.holes(in: conversationId, within: lowest...maxSeq) {
            var after = hole.lowerBound - 1
            while after < hole.upperBound {
                let query = HistoryQuery(
                    conversationId: conversationId, before: hole.upperBound + 1, after: after, limit: Limits.maxPageSize
                )
                let page: HistoryPage = try await request(
                    .history, query, http: .history, conversationId,
                    query: ["after": "\(after)", "before": "\(hole.upperBound + 1)", "limit": "\(Limits.maxPageSize)"])
                await deliver(try store.saveMessages(page.messages))
                guard let last = page.messages.last else { break }
                after = last.seq
            }
        }
    }

    /// Older messages than `seq`: from the store, topped up from the server.
    public func messages(in conversationId: ConversationID, before seq: Int64?, limit: Int) async throws -> [Message] {
        let local = try store.messages(in: conversationId, before: seq, limit: limit)
        let upper = (seq ?? Int64.max) - 1
        let lower = max(1, (local.first?.seq ?? (seq ?? 1)) - Int64(limit - local.count))
        let expectedTop = min(upper, try store.conversation(conversationId)?.maxSeq ?? 0)
        if expectedTop >= lower, try !store.holes(in: conversationId, within: lower...expectedTop).isEmpty {
            let page: HistoryPage = try await request(
                .history, HistoryQuery(conversationId: conversationId, before: seq, limit: limit), http: .history,
                conversationId,
                query: seq.map { ["before": "\($0)", "limit": "\(limit)"] } ?? ["limit": "\(limit)"])
            await deliver(try store.saveMessages(page.messages))
            return try store.messages(in: conversationId, before: seq, limit: limit)
        }
        return local
    }

    // MARK: Pushes

    func handlePush(_ frame: IncomingFrame) async {
        switch frame.type {
        case ServerFrameType.message.rawValue:
            guard let message = try? frame.payload(Message.self) else { return }
            if let item = try? store.outboxItem(message.clientMsgId), message.senderId.rawValue == session?.userId,
                item.state == .sending, let sent = try? store.markSent(message)
            {
                await notifyOutbox(sent)
            }
            guard let inserted = try? store.saveMessages([message]) else { return }
            await deliver(inserted)
            if let holes = try? store.holes(in: message.conversationId, within: 1...message.seq), !holes.isEmpty {
                Task { try? await self.fillHoles(in: message.conversationId, upTo: message.seq) }
            }
        case ServerFrameType.event.rawValue:
            guard let event = try? frame.payload(UserEvent.self) else { return }
            try? store.applyEvent(event)
            if case .conversationAdded(let added) = event.body {
                let id = added.conversationId
                // Fetched aside so the push loop never waits on HTTP; the next sync reports it too.
                Task {
                    if let detail: ConversationDetail = try? await self.http(.getConversation, id) {
                        try? self.store.saveConversation(detail.conversation)
                    }
                }
            }
        case ServerFrameType.receipt.rawValue:
            guard let receipt = try? frame.payload(ReadReceipt.self) else { return }
            try? store.recordOthersRead(receipt)
            await context(receipt.conversationId)?.othersRead(upTo: receipt.seq)
        default:
            break
        }
    }

    // MARK: Conversations

    /// The direct conversation with a user: from the store when this device has it (so it
    /// opens, and takes messages for the outbox, while the server is unreachable), else
    /// from the server, which creates it if needed.
    public func openDirect(withUsername username: String) async throws -> ConversationSummary {
        if let known = try store.directConversation(withUsername: username) { return known }
        let user: User = try await http(.getUserByUsername, username)
        try store.saveUser(user)
        let detail: ConversationDetail = try await http(.openDirect, body: OpenDirectRequest(userId: user.id))
        try store.saveConversation(detail.conversation)
        return detail.conversation
    }

    /// A new group with the named users.
    public func createGroup(name: String, usernames: [String]) async throws -> ConversationSummary {
        var ids: [UserID] = []
        for username in usernames {
            let user: User = try await http(.getUserByUsername, username)
            try store.saveUser(user)
            ids.append(user.id)
        }
        let detail: ConversationDetail = try await http(
            .createGroup, body: CreateGroupRequest(name: name, memberIds: ids))
        try store.saveConversation(detail.conversation)
        return detail.conversation
    }

    /// A user's profile, from the store or the server.
    public func user(_ id: UserID) async throws -> User {
        if let user = try store.user(id) { return user }
        let user: User = try await http(.getUser, id)
        try store.saveUser(user)
        return user
    }

    /// The conversation list, live.
    public nonisolated var conversationList: ConversationList { ConversationList(store: store) }

    /// The one ``ChatContext`` of a conversation, shared by everyone who opens it.
    public func chat(_ conversationId: ConversationID) -> ChatContext {
        if let existing = contexts[conversationId]?.context { return existing }
        let context = ChatContext(conversationId: conversationId, client: self, selfId: UserID(session?.userId ?? 0))
        contexts[conversationId] = WeakContext(context: context)
        return context
    }

    private func context(_ id: ConversationID) -> ChatContext? { contexts[id]?.context }

    private func deliver(_ messages: [Message]) async {
        for (conversationId, group) in Dictionary(grouping: messages, by: \.conversationId) {
            await context(conversationId)?.merge(group)
        }
    }

    private func notifyOutbox(_ item: OutboxItem) async {
        if let conversationId = item.conversationId { await context(conversationId)?.apply(item) }
    }

    // MARK: Sending

    /// Queues a message (shown at once as `sending`) and starts sending it.
    @discardableResult
    public func send(_ kind: MessageKind, _ content: JSONValue, to conversationId: ConversationID) async throws
        -> OutboxItem
    {
        let item = try store.enqueue(
            clientMsgId: UUID().uuidString.lowercased(), conversationId: conversationId, toUserId: nil, kind: kind,
            content: content, at: wallClock())
        await notifyOutbox(item)
        Task { await self.flushOutbox() }
        return item
    }

    /// Queues a text message.
    @discardableResult
    public func send(text: String, to conversationId: ConversationID) async throws -> OutboxItem {
        try await send(.text, ["text": .string(text)], to: conversationId)
    }

    /// Puts a failed message back in the queue with its original id.
    public func resend(_ clientMsgId: String) async throws {
        guard let item = try store.markSending(clientMsgId, at: wallClock()) else { return }
        await notifyOutbox(item)
        await flushOutbox()
    }

    /// Drops a failed message from the queue.
    public func cancel(_ clientMsgId: String) async throws {
        guard let item = try store.outboxItem(clientMsgId), try store.removeFailed(clientMsgId) else { return }
        if let conversationId = item.conversationId { await context(conversationId)?.remove(clientMsgId: clientMsgId) }
    }

    /// Moves the read watermark (locally at once, then on the server).
    public func markRead(_ conversationId: ConversationID, upTo seq: Int64) async throws {
        try store.markReadLocally(conversationId, upTo: seq)
        let _: ReadReceipt = try await request(
            .read, ReadRequest(conversationId: conversationId, seq: seq), http: .markRead, conversationId)
    }

    /// Sends queued items in order until the queue is empty or the server is unreachable.
    /// When a flush is already running, asks it for one more pass and waits for it to end,
    /// so that what was queued before the call has been tried when the call returns.
    public func flushOutbox() async {
        if let running = flushTask {
            flushRequested = true
            await running.value
            return
        }
        let task = Task { await self.drainOutbox() }
        flushTask = task
        await task.value
    }

    /// The one running flush: passes over the queue until no further pass was asked for.
    private func drainOutbox() async {
        defer { flushTask = nil }
        repeat {
            flushRequested = false
            await expireOverdueSends()
            guard let items = try? store.sendingItems() else { return }
            for item in items {
                do {
                    let response: SendMessageResponse = try await request(.send, item.request, http: .sendMessage)
                    if let sent = try store.markSent(response.message) {
                        await notifyOutbox(sent)
                        await deliver([response.message])
                    }
                } catch let error as ParleyError where error.code.httpStatus < 500 {
                    if let failed = try? store.markFailed(item.clientMsgId, reason: error.message, retryable: false) {
                        await notifyOutbox(failed)
                    }
                } catch {
                    return  // unreachable: keep the order, retry after the next connection
                }
            }
        } while flushRequested
    }

    /// Marks items that waited longer than the send timeout as failed (retryable).
    func expireOverdueSends() async {
        let deadline = wallClock() - configuration.sendTimeout.milliseconds
        for item in (try? store.sendingItems()) ?? [] where item.createdAt < deadline {
            if let failed = try? store.markFailed(item.clientMsgId, reason: "Not sent in time.", retryable: true) {
                await notifyOutbox(failed)
            }
        }
    }
}
