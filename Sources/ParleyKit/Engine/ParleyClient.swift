import Foundation
import ParleyCore

/// The SDK's entry point (SPEC 3 and 4): one signed-in device over a local ``ClientStore``.
/// It composes the engine's parts and owns the connection's lifecycle:
///
/// - ``session``: account, login, tokens (one shared refresh at a time);
/// - ``sync``: the ``SyncEngine``, which keeps the store up to date and handles pushes;
/// - ``sendQueue``: the ``SendQueue`` (outbox), whose sends return handles;
/// - feature facades: ``conversations``, ``groups``, ``messages``, ``settings``, ``profile``,
///   ``contacts``, ``typing``, ``presence``, ``notifications``, ``search``, ``files``, ``sessions`` and
///   ``twoFactor``.
///
/// Views never get pushed into: a ``ChatContext`` follows the sync engine and the send
/// queue. Only the engine's parts write the store.
public actor ParleyClient {
    public nonisolated let store: ClientStore
    public nonisolated let connection: ConnectionManager
    public nonisolated let configuration: ClientConfiguration
    /// The signed-in account and its tokens.
    public nonisolated let session: Session
    /// Sync, hole filling, older pages and pushes.
    public nonisolated let sync: SyncEngine
    /// The outbox: sends, resends, cancels, and their states.
    public nonisolated let sendQueue: SendQueue
    /// Conversations: open or create one, the live list, chat contexts, read watermarks.
    public nonisolated let conversations: Conversations
    /// Group administration: profile, members, roles, mutes, invite links, join requests.
    public nonisolated let groups: Groups
    /// Typing indicators: this user's, and who is typing where.
    public nonisolated let typing: Typing
    /// The user's own settings for each conversation: pinned, muted, hidden, draft.
    public nonisolated let settings: Settings
    /// Message actions: recall, edit, forward, delete for me, clear history, receipts.
    public nonisolated let messages: MessageActions
    /// The signed-in user's own profile and privacy settings.
    public nonisolated let profile: Profile
    /// Finding people: lookups by username, email or phone, and nickname search.
    public nonisolated let contacts: Contacts
    /// Who is online: friends as they come and go, anyone on request.
    public nonisolated let presence: PresenceFeed
    /// Notification preferences and this device's push token.
    public nonisolated let notifications: Notifications
    /// Message search: over what this device holds, on the server, or both.
    public nonisolated let search: Search
    /// Uploads (found by hash, chunked, resumable), downloads and links.
    public nonisolated let files: Files
    /// The user's sessions on every device: list and revoke.
    public nonisolated let sessions: Sessions
    /// Two-factor login: status, turning it on with a first code, turning it off.
    public nonisolated let twoFactor: TwoFactor
    private let time: TimeSource
    private var maintenance: Task<Void, Never>?
    /// The catch-up under way: a later call waits for it, then runs its own.
    private var catchingUp: Task<Void, Never>?
    /// Catch-ups in a row that failed to sync or to fetch what the device lacks (0: the last
    /// one completed). The socket may have stayed up, so no reconnection would run one again:
    /// the maintenance tick does, after `ticksUntilCatchUp` more ticks.
    package private(set) var catchUpFailures = 0
    private var ticksUntilCatchUp = 0

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
        let api = APIClient(baseURL: configuration.serverURL, http: http)
        let session = try Session(
            api: api, store: store, deviceName: configuration.deviceName, wallClock: wallClock)
        self.session = session
        connection = ConnectionManager(
            url: api.webSocketURL, transport: realtime, configuration: configuration.connection, time: time,
            random: random,
            // Weak: a client dropped without `disconnect()` must not keep a socket signed in.
            token: { [weak session] in await session?.accessToken() })
        let requests = ServerRequests(connection: connection, session: session, timeout: configuration.requestTimeout)
        sessions = Sessions(session: session)
        twoFactor = TwoFactor(session: session)
        let files = Files(store: store, session: session)
        self.files = files
        sendQueue = SendQueue(
            store: store, requests: requests, sendTimeout: configuration.sendTimeout, wallClock: wallClock,
            upload: { file, progress in
                try await files.upload(
                    fileAt: file.path, kind: file.kind, mimeType: file.mimeType, name: file.name, progress: progress)
            })
        sync = SyncEngine(store: store, session: session, requests: requests, sendQueue: sendQueue)
        typing = Typing(connection: connection, time: time)
        groups = Groups(store: store, session: session, requests: requests)
        settings = Settings(store: store, session: session)
        profile = Profile(store: store, session: session)
        contacts = Contacts(store: store, session: session)
        presence = PresenceFeed(session: session)
        notifications = Notifications(store: store, session: session)
        search = Search(store: store, session: session)
        messages = MessageActions(
            store: store, session: session, sync: sync, connection: connection,
            newClientMsgId: { UUID().uuidString.lowercased() }, pendingForwards: PendingForwards())
        conversations = Conversations(
            store: store, session: session, sync: sync, sendQueue: sendQueue, requests: requests, groups: groups,
            messages: messages, contexts: ChatContexts())
    }

    /// The server's HTTP API without a session (the session's ``Session/http(_:_:query:body:as:)``
    /// adds the token).
    public nonisolated var api: APIClient { session.api }

    /// Revokes the session on the server (when reachable), stops the connection and forgets the session.
    public func logout() async {
        await disconnect()
        await session.end()
    }

    /// Deletes the account for good, given its password (and, with two-factor login on, a code
    /// from the app or a recovery code), then forgets the session as ``logout()`` does. What
    /// becomes of messages, groups and contacts: docs/protocol.md, "Deleting an account".
    public func deleteAccount(password: String, code: String? = nil) async throws {
        let _: APIClient.Empty = try await session.http(
            .deleteAccount, body: DeleteAccountRequest(password: password, code: code))
        await logout()
    }

    // MARK: Connection

    /// Goes online: connects, and after every (re)connection catches up (``catchUp()``).
    public func connect() async {
        let (sync, typing, presence) = (self.sync, self.typing, self.presence)
        await connection.setHandlers(
            onPush: { [weak sync, weak typing, weak presence] frame in
                // Signals go to their feature; everything stored goes to the sync engine.
                if frame.type == ServerFrameType.typing.rawValue {
                    if let notice = try? frame.payload(TypingNotice.self) { await typing?.receive(notice) }
                } else if frame.type == ServerFrameType.presence.rawValue {
                    if let update = try? frame.payload(Presence.self) { await presence?.receive(update) }
                } else {
                    await sync?.handlePush(frame)
                }
            },
            onConnected: { [weak self] in await self?.catchUp() })
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

    /// What happens after every (re)connection, on demand: sync from the cursor and fill
    /// holes, fetch the contact book if a snapshot sync left it unknown, the notification
    /// preferences if it holds none, and the friends' presence, then flush the send queue
    /// (last: it may be uploading a large file). One catch-up runs at a time: a call waits
    /// for the one under way, then runs its own. When the sync, the contact book's fetch or
    /// the preferences' fails (presence, held in memory, is left to the pushes), the next
    /// catch-up comes a second later while connected, then after waits that double up to a
    /// minute, until one completes.
    public func catchUp() async {
        while let running = catchingUp {
            await running.value
            if catchingUp == running { catchingUp = nil }
        }
        let run = Task { await catchUpOnce() }
        catchingUp = run
        await run.value
        if catchingUp == run { catchingUp = nil }
    }

    private func catchUpOnce() async {
        let synced = await sync.resync()
        let contactsFetched = (try? await contacts.refreshIfUnknown()) != nil
        let notificationsFetched = (try? await notifications.fetchIfUnknown()) != nil
        _ = try? await presence.refresh()
        if synced && contactsFetched && notificationsFetched {
            catchUpFailures = 0
        } else {
            catchUpFailures += 1
            ticksUntilCatchUp = min(60, 1 << min(catchUpFailures - 1, 6)) - 1
        }
        await sendQueue.flush()
    }

    /// Once a second while online: catches up again when the last catch-up failed and its
    /// wait is over, retries queued sends (an ack lost in a stalled network is retried
    /// without waiting for the next reconnection) and expires overdue ones.
    private func startMaintenance() {
        maintenance?.cancel()
        let time = self.time
        maintenance = Task { [weak self] in
            while !Task.isCancelled {
                do { try await time.sleep(.seconds(1)) } catch { return }
                guard let self else { return }
                await self.maintain()
            }
        }
    }

    private func maintain() async {
        if catchUpFailures > 0, await connection.status == .connected {
            guard ticksUntilCatchUp > 0 else { return await catchUp() }
            ticksUntilCatchUp -= 1
        }
        await sendQueue.flush()
    }

    deinit { maintenance?.cancel() }
}
