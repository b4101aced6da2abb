import DequeModule
import ParleyCore
import Synchronization

/// The frames waiting to be written to one socket, bounded so that a slow or stuck reader
/// cannot hold memory or slow anyone else.
///
/// Producers (fan-out, request handlers) never wait: ``enqueue(_:)`` either queues the frame
/// or, when the queue is full, drops everything and asks the writer to close the socket with
/// ``CloseCode/slowConsumer``. Nothing is lost by that: the client resyncs from its cursor.
/// A close request overtakes queued frames.
final class OutboundQueue: Sendable {
    enum Item: Sendable, Equatable {
        case frame(String)
        case close(CloseCode, reason: String)
    }

    private struct State {
        var frames = Deque<String>()
        var close: Item?
        var finished = false
        var waiter: CheckedContinuation<Item?, Never>?
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    /// Queues a frame; false when the socket is closing (now or because this overflowed it).
    @discardableResult
    func enqueue(_ frame: String) -> Bool {
        let (accepted, waiter, item) = state.withLock { state -> (Bool, CheckedContinuation<Item?, Never>?, Item?) in
            guard state.close == nil, !state.finished else { return (false, nil, nil) }
            if state.frames.count >= limit {
                state.frames.removeAll()
                state.close = .close(.slowConsumer, reason: "Too far behind; reconnect and sync.")
                return (false, state.waiter.take(), state.close)
            }
            if let waiter = state.waiter.take() { return (true, waiter, .frame(frame)) }
            state.frames.append(frame)
            return (true, nil, nil)
        }
        if let waiter { waiter.resume(returning: item) }
        return accepted
    }

    /// Asks the writer to close the socket with `code` once its current write is done.
    func close(_ code: CloseCode, reason: String) {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            guard state.close == nil, !state.finished else { return nil }
            state.frames.removeAll()
            state.close = .close(code, reason: reason)
            return state.waiter.take()
        }
        waiter?.resume(returning: .close(code, reason: reason))
    }

    /// Ends the queue: the writer's next call returns nil.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            state.finished = true
            return state.waiter.take()
        }
        waiter?.resume(returning: nil)
    }

    /// Frames waiting to be written.
    var count: Int { state.withLock { $0.frames.count } }

    /// Whether the socket is being closed.
    var isClosing: Bool { state.withLock { $0.close != nil || $0.finished } }

    /// The next item for the writer, waiting for one; nil once finished or after the close.
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Item?? in
                    if state.finished { return .some(nil) }
                    if let close = state.close {
                        state.finished = true
                        return .some(close)
                    }
                    if let frame = state.frames.popFirst() { return .some(.frame(frame)) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }
}
