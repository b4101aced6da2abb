import ParleyKit
import Synchronization

/// A ``TimeSource`` that moves only when a test says so.
public final class ManualTime: Sendable {
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let state = Mutex<(now: Duration, nextID: Int, sleepers: [Sleeper])>((.zero, 0, []))

    public init() {}

    public var source: TimeSource {
        TimeSource(
            now: { [self] in state.withLock { $0.now } }, sleep: { [self] duration in try await sleep(duration) })
    }

    public var now: Duration { state.withLock { $0.now } }

    /// How many sleeps are waiting.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// When the waiting sleeps are due, earliest first.
    public var deadlines: [Duration] { state.withLock { $0.sleepers.map(\.deadline).sorted() } }

    /// Moves time forward, waking every sleep that is due, in deadline order.
    public func advance(by duration: Duration) async {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
        for _ in 0..<20 { await Task.yield() }
    }

    private func sleep(_ duration: Duration) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Like Task.sleep, a task cancelled before it sleeps does not sleep at all.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let resumeNow = state.withLock { state -> Bool in
                    if duration <= .zero { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now + duration, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
