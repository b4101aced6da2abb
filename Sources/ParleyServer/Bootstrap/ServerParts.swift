import Hummingbird
import Logging
import ParleyCore
import ParleyStore

/// The features of one server node, wired together: each feature's service, its HTTP
/// routes and its WebSocket request frames. Adding a feature adds its lines here.
struct ServerParts {
    let accounts: AccountService
    let hub: ConnectionHub
    let gateway: WebSocketGateway
    let store: any ParleyStore
    /// This node's part of presence, and the pushes to devices that are not connected:
    /// services that run beside the server.
    let presenceTracker: PresenceTracker
    let pushes: PushDispatcher
    /// Indexes for search what was stored before search existed.
    let searchIndexer: SearchIndexer
    /// Throws away expired uploads and collects files nothing references.
    let fileSweeper: FileSweeper
    /// Every feature's WebSocket request frames.
    let frameHandlers: FrameHandlers
    let metrics = ServerMetrics()
    private let accountController: AccountController
    private let conversationController: ConversationController
    private let groupController: GroupController
    private let settingsController: SettingsController
    private let messageController: MessageController
    private let messageActionController: MessageActionController
    private let syncController: SyncController
    private let typingController: TypingController
    private let contactController: ContactController
    private let presenceController: PresenceController
    private let notificationController: NotificationController
    private let searchController: SearchController
    private let fileController: FileController

    /// `words` is the sensitive-word filter names and profile texts must pass; `pusher`
    /// hands notifications to a push service (by default, to the log).
    init(
        storage: Storage, configuration: ServerConfiguration, clock: WallClock, logger: Logger,
        words: WordFilter = WordFilter(), pusher: (any Pusher)? = nil, codeSenders: CodeSenders
    ) {
        let store = storage.store
        self.store = store
        let limiter = RateLimiter(store: store, clock: clock, limits: configuration.rateLimits)
        let pushes = PushDispatcher(
            store: store, pusher: pusher ?? LogPusher(logger: logger), clock: clock, metrics: metrics, logger: logger)
        self.pushes = pushes
        let presence = PresenceService(store: store, fanOut: storage.fanOut, logger: logger)
        presenceController = PresenceController(presence: presence)
        presenceTracker = PresenceTracker(
            store: store, presence: presence, clock: clock, configuration: configuration, logger: logger)
        notificationController = NotificationController(
            notifications: NotificationService(store: store, clock: clock, pushes: pushes))
        accounts = AccountService(
            store: store, clock: clock, configuration: configuration, words: words, limiter: limiter,
            codeSenders: codeSenders, logger: logger)
        accountController = AccountController(accounts: accounts, presence: presence)
        conversationController = ConversationController(
            conversations: ConversationService(
                store: store, clock: clock, maxGroupMembers: configuration.maxGroupMembers, words: words,
                pushes: pushes))
        groupController = GroupController(
            groups: GroupService(store: store, clock: clock, words: words, pushes: pushes))
        settingsController = SettingsController(settings: SettingsService(store: store, clock: clock))
        let files = FileService(
            store: store, blobs: storage.blobs, clock: clock, configuration: configuration.files,
            links: FileLinkSigner(store: store), workDirectory: storage.workDirectory, limiter: limiter)
        fileController = FileController(files: files, blobs: storage.blobs, accounts: accounts)
        fileSweeper = FileSweeper(
            store: store, blobs: storage.blobs, clock: clock, configuration: configuration.files,
            workDirectory: storage.workDirectory, logger: logger)
        let messages = MessageService(
            store: store, clock: clock, metrics: metrics, pushes: pushes, files: files, limiter: limiter)
        messageController = MessageController(messages: messages)
        messageActionController = MessageActionController(
            actions: MessageActionService(
                store: store, messages: messages, clock: clock, windows: configuration.messageWindows))
        syncController = SyncController(sync: SyncService(store: store))
        searchController = SearchController(search: SearchService(store: store))
        searchIndexer = SearchIndexer(store: store, logger: logger)
        typingController = TypingController(typing: TypingService(store: store, fanOut: storage.fanOut, clock: clock))
        contactController = ContactController(
            contacts: ContactService(
                store: store, clock: clock, words: words, requestTTLMs: configuration.friendRequestTTLMs,
                pushes: pushes, limiter: limiter))
        frameHandlers = FrameHandlers(
            groupController.frameHandlers + messageController.frameHandlers + messageActionController.frameHandlers
                + syncController.frameHandlers + typingController.frameHandlers)
        hub = ConnectionHub(
            fanOut: storage.fanOut, configuration: configuration, metrics: metrics, logger: logger,
            presence: presenceTracker)
        gateway = WebSocketGateway(
            hub: hub, fanOut: storage.fanOut, accounts: accounts, handlers: frameHandlers,
            configuration: configuration, clock: clock, metrics: metrics, logger: logger)
    }

    /// Registers every HTTP endpoint and returns the registry that recorded them.
    @discardableResult
    func addRoutes(to router: Router<ParleyRequestContext>) -> RouteRegistry {
        let routes = RouteRegistry(router: router, accounts: accounts)
        SystemController(store: store, metrics: metrics).addRoutes(to: routes)
        accountController.addRoutes(to: routes)
        contactController.addRoutes(to: routes)
        presenceController.addRoutes(to: routes)
        notificationController.addRoutes(to: routes)
        conversationController.addRoutes(to: routes)
        groupController.addRoutes(to: routes)
        settingsController.addRoutes(to: routes)
        messageController.addRoutes(to: routes)
        messageActionController.addRoutes(to: routes)
        syncController.addRoutes(to: routes)
        searchController.addRoutes(to: routes)
        fileController.addRoutes(to: routes)
        routes.markServedElsewhere(.webSocket)
        WebClientController(files: .bundled).addRoutes(to: router)
        return routes
    }
}
