import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle
import Synchronization

/// Pushes to users with no connected device, off the path of the request that committed
/// what they are told of: ``enqueue(_:)`` never waits, a bounded queue drops the oldest
/// pushes when the pushers fall behind (the messages themselves are stored and synced
/// whatever becomes of their pushes), and at most ``maxConcurrentJobs`` run at once, so a
/// slow push service slows pushes only. The node that committed something pushes it.
///
/// Most messages go to nobody with a push token, and a send must not pay a query to learn
/// that: the dispatcher keeps the set of users who hold a token (all of them at start, then
/// those registered since, every ``holderRefresh``, with a minute's margin for clocks; a
/// registration on this node joins at once) and looks further only when a recipient is in
/// it. A user who registers on another node is in it within ``holderRefresh``, while that
/// device is still in use; one who dropped their token stays in it, which costs a query.
final class PushDispatcher: Service, Sendable {
    /// Queued pushes past this many drop the oldest.
    static let queueLimit = 10_000
    static let maxConcurrentJobs = 64
    static let holderRefresh: Duration = .seconds(5)
    /// Token holders are reloaded whole this often, against a clock far off on some node.
    static let holderReload: Duration = .seconds(600)

    /// The users who hold a push token, once loaded.
    private let holders = Mutex<Set<UserID>?>(nil)

    private let jobs: AsyncStream<PushDecision.Subject>
    private let continuation: AsyncStream<PushDecision.Subject>.Continuation
    private let store: any ParleyStore
    private let pusher: any Pusher
    private let clock: WallClock
    private let metrics: ServerMetrics
    private let logger: Logger

    init(store: any ParleyStore, pusher: any Pusher, clock: WallClock, metrics: ServerMetrics, logger: Logger) {
        (jobs, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.queueLimit))
        self.store = store
        self.pusher = pusher
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
    }

    /// Queues the pushes `subject` may cause; returns at once.
    func enqueue(_ subject: PushDecision.Subject) {
        if case .dropped = continuation.yield(subject) { metrics.pushesDropped.increment() }
    }

    /// Queues the pushes of a new message to `recipients` (its conversation's members), unless
    /// none of them but the sender holds a push token.
    func enqueue(_ message: Message, to recipients: [UserID]) {
        let mayPush = holders.withLock { holders in
            guard let holders else { return true }
            return recipients.contains { $0 != message.senderId && holders.contains($0) }
        }
        if mayPush { enqueue(.message(message)) }
    }

    /// `userId` registered a push token on this node.
    func noteTokenHolder(_ userId: UserID) {
        holders.withLock { _ = $0?.insert(userId) }
    }

    /// Loads the token holders registered since `since` (all with 0).
    private func loadHolders(since: Int64) async {
        do {
            let found = try await store.pushTokenHolders(registeredSince: since)
            holders.withLock { holders in
                if since == 0 { holders = Set(found) } else { holders?.formUnion(found) }
            }
        } catch {
            logger.warning("Cannot load the push token holders", metadata: ["error": "\(error)"])
        }
    }

    /// Keeps the token holders current: all at once, then those registered since each refresh.
    private func refreshHolders() async throws {
        var reloaded = ContinuousClock.now
        var since = clock.now()
        await loadHolders(since: 0)
        while true {
            try await Task.sleep(for: Self.holderRefresh)
            let started = clock.now()
            if ContinuousClock.now - reloaded > Self.holderReload {
                reloaded = ContinuousClock.now
                await loadHolders(since: 0)
            } else {
                await loadHolders(since: since - 60_000)
            }
            since = started
        }
    }

    func run() async throws {
        let refreshing = Task { try await self.refreshHolders() }
        defer { refreshing.cancel() }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await subject in self.jobs {
                    if running >= Self.maxConcurrentJobs {
                        await group.next()
                        running -= 1
                    }
                    group.addTask { await self.push(subject) }
                    running += 1
                }
            }
        }
        continuation.finish()
    }

    /// Finds who is to be told of `subject` and pushes to each of their devices.
    func push(_ subject: PushDecision.Subject) async {
        do {
            let audience: PushAudience
            let now = clock.now()
            switch subject {
            case .message(let message):
                audience = try await store.pushAudience(
                    of: nil, in: message.conversationId, from: message.senderId, at: now)
            case .friendRequest(let from, let to):
                audience = try await store.pushAudience(of: [to], in: nil, from: from, at: now)
            case .invitation(let group, let actor, let users):
                audience = try await store.pushAudience(of: users, in: group, from: actor, at: now)
            }
            for recipient in audience.recipients {
                guard
                    let notification = PushDecision.notification(
                        about: subject, for: recipient, in: audience, at: now)
                else { continue }
                for token in recipient.tokens { await deliver(notification, to: token) }
            }
        } catch {
            metrics.pushesFailed.increment()
            logger.warning("Cannot prepare pushes", metadata: ["error": "\(error)"])
        }
    }

    private func deliver(_ notification: PushNotification, to token: PushToken) async {
        switch await pusher.push(notification, to: token) {
        case .delivered:
            metrics.pushesDelivered.increment()
        case .tokenGone:
            metrics.pushesFailed.increment()
            do {
                try await store.removePushToken(token.token, platform: token.platform)
            } catch {
                logger.warning("Cannot forget a push token", metadata: ["error": "\(error)"])
            }
        case .failed(let reason):
            metrics.pushesFailed.increment()
            logger.warning("Push failed", metadata: ["platform": "\(token.platform)", "reason": "\(reason)"])
        }
    }
}
