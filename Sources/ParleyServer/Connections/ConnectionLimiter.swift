import Synchronization

/// Counts open connections per IP address and refuses those over a limit, so that no one
/// address can hold all of the server's file descriptors.
final class ConnectionLimiter: Sendable {
    private let limit: Int
    private let open = Mutex<[String: Int]>([:])

    /// `limit` connections per address; 0 for no limit.
    init(limit: Int) { self.limit = limit }

    /// Counts a new connection from `address`; false (and nothing counted) when the address
    /// already has `limit` open.
    func acquire(_ address: String) -> Bool {
        guard limit > 0 else { return true }
        return open.withLock { open in
            let count = open[address, default: 0]
            guard count < limit else { return false }
            open[address] = count + 1
            return true
        }
    }

    /// Uncounts a connection that ``acquire(_:)`` counted.
    func release(_ address: String) {
        guard limit > 0 else { return }
        open.withLock { open in
            let count = open[address, default: 1] - 1
            open[address] = count > 0 ? count : nil
        }
    }
}
