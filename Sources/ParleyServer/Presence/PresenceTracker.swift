import Foundation
import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle
import Synchronization

/// This node's part of presence: it counts each user's connected devices here, and every
/// ``ServerConfiguration/presenceInterval`` writes the users whose count left zero to the
/// store, and those whose count reached zero one interval later (so a device that reconnects
/// within that time, here or on another node, changes nothing), then has the turns
/// announced. It heartbeats the node, writes all its users again if it had been swept as
/// silent, and sweeps nodes that went silent.
final class PresenceTracker: Service, Sendable {
    /// This process's node id; a restarted node is a new one.
    let node = UUID().uuidString
    private struct State {
        var devices: [UserID: Int] = [:]
        var changed: Set<UserID> = []
        /// Users whose last device here left before the last write: written at the next one.
        var leaving: Set<UserID> = []
        /// Turns recorded but not yet told (the fan-out failed): told with the next ones.
        var untold: [PresenceChange] = []
    }

    private let state = Mutex(State())
    private let store: any ParleyStore
    private let presence: PresenceService
    private let clock: WallClock
    private let interval: Duration
    private let nodeTimeout: Duration
    private let logger: Logger

    init(
        store: any ParleyStore, presence: PresenceService, clock: WallClock, configuration: ServerConfiguration,
        logger: Logger
    ) {
        self.store = store
        self.presence = presence
        self.clock = clock
        interval = configuration.presenceInterval
        nodeTimeout = configuration.nodeTimeout
        self.logger = logger
    }

    /// A device of `user` authenticated on this node.
    func connected(_ user: UserID) {
        state.withLock {
            $0.devices[user, default: 0] += 1
            $0.changed.insert(user)
        }
    }

    /// A device of `user` left this node.
    func disconnected(_ user: UserID) {
        state.withLock {
            let left = ($0.devices[user] ?? 1) - 1
            $0.devices[user] = left > 0 ? left : nil
            $0.changed.insert(user)
        }
    }

    /// Writes the users whose devices here changed and announces their turns; on failure
    /// they stay to be written (or told) next time.
    func flush() async {
        let (connected, disconnected) = state.withLock { state -> ([UserID], [UserID]) in
            let changed = state.changed.sorted { $0.rawValue < $1.rawValue }
            state.changed = []
            let gone = state.leaving.filter { state.devices[$0] == nil }.sorted { $0.rawValue < $1.rawValue }
            state.leaving = Set(changed.filter { state.devices[$0] == nil })
            return (changed.filter { state.devices[$0] != nil }, gone)
        }
        var changes: [PresenceChange] = []
        if !connected.isEmpty || !disconnected.isEmpty {
            do {
                changes = try await store.updatePresence(
                    node: node, connected: connected, disconnected: disconnected, at: clock.now())
            } catch {
                logger.warning("Cannot record presence; retrying", metadata: ["error": "\(error)"])
                state.withLock { $0.changed.formUnion(connected + disconnected) }
            }
        }
        await tell(changes)
    }

    /// Announces `changes` after any left untold, the latest of each user only; keeps them
    /// for the next time when the fan-out fails.
    private func tell(_ changes: [PresenceChange]) async {
        let all = state.withLock { state -> [PresenceChange] in
            defer { state.untold = [] }
            return state.untold + changes
        }
        guard !all.isEmpty else { return }
        var latest: [UserID: Int] = [:]
        for (index, change) in all.enumerated() { latest[change.userId] = index }
        let told = all.enumerated().filter { latest[$0.element.userId] == $0.offset }.map(\.element)
        do {
            try await presence.announce(told)
        } catch {
            logger.warning("Cannot tell friends of presence; retrying", metadata: ["error": "\(error)"])
            state.withLock { $0.untold = told + $0.untold }
        }
    }

    /// Heartbeats this node (writing all its users again if it had been swept), then sweeps
    /// the nodes silent past the timeout and announces their users who went offline.
    func heartbeat() async {
        do {
            let now = clock.now()
            if try await !store.heartbeat(node: node, at: now) {
                state.withLock { $0.changed.formUnion($0.devices.keys) }
            }
            await tell(try await store.sweepSilentNodes(before: now - nodeTimeout.milliseconds))
        } catch {
            logger.warning("Cannot heartbeat this node's presence", metadata: ["error": "\(error)"])
        }
    }

    /// Writes every interval and heartbeats every third of the node timeout, each on its own
    /// so that a slow write never delays a heartbeat past the timeout.
    func run() async throws {
        let (interval, beat) = (self.interval, nodeTimeout / 3)
        await heartbeat()
        try? await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while true {
                        try await Task.sleep(for: interval)
                        await self.flush()
                    }
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: beat)
                        await self.heartbeat()
                    }
                }
                try await group.next()
            }
        }
    }
}
