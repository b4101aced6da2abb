import Logging
import ServiceLifecycle
import Testing

/// Runs a test server's services. A graceful shutdown that has not ended after
/// ``shutdownLimit`` is cut short by cancellation and recorded as a failure of the test that
/// stopped the server: without a limit, one connection that never closed held a whole CI
/// run until CI's own time ran out, and nothing named the test.
public struct TestServiceGroup: Sendable {
    /// Generous: CI's PostgreSQL run once took 10.8 s to stop a server.
    public static let shutdownLimit: Duration = .seconds(90)

    private let group: ServiceGroup

    public init(_ service: some Service, logger: Logger) {
        var configuration = ServiceGroupConfiguration(services: [service], logger: logger)
        configuration.maximumGracefulShutdownDuration = Self.shutdownLimit
        group = ServiceGroup(configuration: configuration)
    }

    public func run() async throws { try await group.run() }

    /// Triggers the graceful shutdown and waits for `stopped` (whatever awaits ``run()``).
    public func stop(waitingFor stopped: () async -> Void) async {
        let start = ContinuousClock.now
        await group.triggerGracefulShutdown()
        await stopped()
        let took = ContinuousClock.now - start
        if took >= Self.shutdownLimit {
            Issue.record("The server took \(took) to stop: its graceful shutdown did not end by itself.")
        }
    }
}
