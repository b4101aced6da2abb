import Logging
import ParleyStore
import ServiceLifecycle

/// Indexes the messages stored before search existed (an upgraded server), a batch at a
/// time, newest first, until none is left; then waits for the shutdown. Where it stopped is
/// stored, so a restart goes on from there, and several nodes may run it at once.
struct SearchIndexer: Service {
    static let batch = 200
    /// A pause between batches, so that sends keep the writer.
    static let pause: Duration = .milliseconds(20)
    static let retryAfterFailure: Duration = .seconds(5)
    /// The first batch waits this long, so that it takes a connection the node's start has
    /// left idle instead of opening one more beside the start's own work.
    static let startDelay: Duration = .seconds(2)

    let store: any ParleyStore
    let logger: Logger

    func run() async throws {
        let indexed = await cancelWhenGracefulShutdown { await indexBacklog() }
        if indexed > 0 { logger.info("Indexed earlier messages for search", metadata: ["messages": "\(indexed)"]) }
        try? await gracefulShutdown()
    }

    /// Indexes batches until none is left (or the task is cancelled); answers how many
    /// messages it looked at.
    private func indexBacklog() async -> Int {
        var indexed = 0
        do { try await Task.sleep(for: Self.startDelay) } catch { return 0 }
        while !Task.isCancelled {
            do {
                let count = try await store.indexSearchBacklog(limit: Self.batch)
                guard count > 0 else { break }
                indexed += count
                try await Task.sleep(for: Self.pause)
            } catch is CancellationError {
                break
            } catch {
                logger.warning("Cannot index messages for search", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: Self.retryAfterFailure)
            }
        }
        return indexed
    }
}
