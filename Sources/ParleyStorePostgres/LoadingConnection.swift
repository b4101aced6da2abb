import ParleyCore
import ParleyStore
import PostgresNIO
import Synchronization

/// The fan-out's loading connection: loads what NOTIFYs name, one note at a time, and fails
/// a load as soon as the connection has closed. PostgresNIO never answers a statement sent
/// on a connection that has closed (one running when it closes does fail), so without this
/// a note heard just after the loader was lost would wait forever, and the node would hear
/// nothing more and tell no client to resync.
final class LoadingConnection: Sendable {
    let connection: PostgresConnection
    private let store: PostgresStore
    /// Whether the connection has closed, and the load waiting for its changes.
    private let state = Mutex<(closed: Bool, waiter: CheckedContinuation<[StoreChange], any Error>?)>((false, nil))

    /// Watches `connection`, whose close fails the load in progress and every later one.
    init(_ connection: PostgresConnection, store: PostgresStore) {
        self.connection = connection
        self.store = store
        connection.closeFuture.whenComplete { [weak self] _ in
            let waiter = self?.state.withLock { state in
                state.closed = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter??.resume(throwing: Self.closedError)
        }
    }

    /// The committed changes `note` names (``PostgresStore/changes(for:on:)``); throws
    /// `unavailable` once the connection has closed.
    func changes(for note: ChangeNote) async throws -> [StoreChange] {
        try await withCheckedThrowingContinuation { continuation in
            let closed = state.withLock { state in
                if !state.closed { state.waiter = continuation }
                return state.closed
            }
            guard !closed else { return continuation.resume(throwing: Self.closedError) }
            Task { [self] in
                let result: Result<[StoreChange], any Error>
                do {
                    result = .success(try await store.changes(for: note, on: connection))
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
    }

    private static let closedError = ParleyError(.unavailable, "The fan-out's loading connection closed.")
}
