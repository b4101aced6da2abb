import DequeModule
import Synchronization

/// The requests one socket's client sent and the server has not answered yet, taken one at a
/// time in the order they came, so a client's sends into a conversation keep their order.
///
/// Like the ``OutboundQueue``'s writer, a server task runs only while there is something to
/// answer: ``push(_:)`` says when the caller must start one, and that task takes requests
/// until ``take()`` answers nil. An idle socket so holds no task, nor the stack a task grows.
///
/// The socket's handler stops reading while the inbox holds ``backlog`` requests or more
/// (``isBacklogged``); ``take()`` says when the inbox fell below that again, so that reading
/// resumes. A client that floods the socket so waits in its own TCP window.
final class RequestInbox: Sendable {
    /// One thing a client asked of the server.
    enum Request: Sendable, Equatable {
        /// The token the upgrade request carried (`Authorization` or `access_token`).
        case token(String)
        /// A text frame, whole and valid UTF-8.
        case text(String)
        /// A binary frame, which the protocol does not use.
        case binary
    }

    private struct State {
        var requests = Deque<Request>()
        /// Whether a task answers requests: started by ``push(_:)``, and not yet told nil by
        /// ``take()``.
        var answering = false
        var closed = false
    }

    /// Requests waiting before the socket stops reading.
    let backlog: Int
    private let state = Mutex(State())

    init(backlog: Int = 16) { self.backlog = backlog }

    /// Adds a request; answers true when no task answers requests and the caller must start
    /// one. After ``close()`` the request is dropped.
    func push(_ request: Request) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.requests.append(request)
            guard !state.answering else { return false }
            state.answering = true
            return true
        }
    }

    /// The next request, and whether taking it brought the inbox below its backlog (reading
    /// may resume). Nil when there is none: the task must then end, and the next push starts
    /// another.
    func take() -> (request: Request, belowBacklog: Bool)? {
        state.withLock { state in
            guard !state.closed, let request = state.requests.popFirst() else {
                state.answering = false
                return nil
            }
            return (request, state.requests.count == backlog - 1)
        }
    }

    /// Whether the socket should stop reading until requests are answered.
    var isBacklogged: Bool { state.withLock { $0.requests.count >= backlog } }

    /// Drops what waits and refuses what comes: the socket is closing.
    func close() {
        state.withLock { state in
            state.closed = true
            state.requests.removeAll()
        }
    }
}
