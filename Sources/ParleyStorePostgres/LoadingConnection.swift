import ParleyCore
import PostgresNIO
import Synchronization

/// The fan-out's loading connection: runs the statements that load what NOTIFYs name, one
/// at a time, and fails them as soon as the connection has closed. PostgresNIO never
/// answers a statement sent on a connection that has closed (one running when it closes
/// does fail), so without this a note heard just after the loader was lost would wait
/// forever, and the node would hear nothing more and tell no client to resync.
final class LoadingConnection: Sendable {
    let connection: PostgresConnection
    /// Whether the connection has closed, and the statement waiting for its answer.
    private let state = Mutex<(closed: Bool, waiter: CheckedContinuation<any Sendable, any Error>?)>((false, nil))

    /// Watches `connection`, whose close fails the statement in progress and every later one.
    init(_ connection: PostgresConnection) {
        self.connection = connection
        connection.closeFuture.whenComplete { [weak self] _ in
            let waiter = self?.state.withLock { state in
                state.closed = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter??.resume(throwing: Self.closedError)
        }
    }

    /// What `body` answers on the connection; throws `unavailable` once it has closed. (A
    /// statement lost that way is left waiting, on a task of its own.)
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let answer = try await withCheckedThrowingContinuation { continuation in
            let closed = state.withLock { state in
                if !state.closed { state.waiter = continuation }
                return state.closed
            }
            guard !closed else { return continuation.resume(throwing: Self.closedError) }
            Task { [self] in
                let result: Result<any Sendable, any Error>
                do {
                    result = .success(try await body(connection))
                } catch {
                    result = .failure(error)
                }
                let waiter = self.state.withLock { state in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(with: result)
            }
        }
        return answer as! T
    }

    private static let closedError = ParleyError(.unavailable, "The fan-out's loading connection closed.")
}
