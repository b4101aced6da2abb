import DequeModule
import NIOCore
import ParleyCore
import Synchronization

/// The frames waiting to be written to one socket, bounded so that a slow or stuck reader
/// cannot hold memory or slow anyone else.
///
/// Producers (fan-out, request handlers) never wait: ``enqueue(_:)`` either queues the frame
/// or, when the queue is full, drops everything and asks the writer to close the socket with
/// ``CloseCode/slowConsumer``. Nothing is lost by that: the client resyncs from its cursor.
/// A close request overtakes queued frames, unless it is one that answers the client
/// (``closeAfterQueued(_:reason:)``: the error frame saying why goes out first).
final class OutboundQueue: Sendable {
    enum Item: Sendable, Equatable {
        /// A frame and when it was queued (monotonic nanoseconds), for delivery latency.
        case frame(String, queuedAt: UInt64)
        case close(CloseCode, reason: String)
    }

    enum EnqueueResult: Sendable, Equatable {
        case queued
        /// The socket is closing; the frame was dropped (sync will cover it).
        case closing
        /// This frame overflowed the queue: the socket will close with 4003.
        case overflowed
    }

    private struct State {
        var frames = Deque<(String, UInt64)>()
        /// A close requested and not yet handed to the writer.
        var close: Item?
        var finished = false
        var waiter: CheckedContinuation<Item?, Never>?

        /// Records a close request; answers the waiting writer to hand `close` to, if any.
        mutating func requestClose(_ close: Item, droppingQueued: Bool) -> CheckedContinuation<Item?, Never>? {
            guard self.close == nil, !finished else { return nil }
            if droppingQueued { frames.removeAll() }
            guard let waiter = waiter.take() else {
                self.close = close
                return nil
            }
            finished = true
            return waiter
        }
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = limit }

    /// Queues a frame without waiting.
    @discardableResult
    func enqueue(_ frame: String, now: UInt64 = NIODeadline.now().uptimeNanoseconds) -> EnqueueResult {
        let (result, waiter, item) = state.withLock {
            state -> (EnqueueResult, CheckedContinuation<Item?, Never>?, Item?) in
            guard state.close == nil, !state.finished else { return (.closing, nil, nil) }
            if state.frames.count >= limit {
                let close = Item.close(.slowConsumer, reason: "Too far behind; reconnect and sync.")
                return (.overflowed, state.requestClose(close, droppingQueued: true), close)
            }
            if let waiter = state.waiter.take() { return (.queued, waiter, .frame(frame, queuedAt: now)) }
            state.frames.append((frame, now))
            return (.queued, nil, nil)
        }
        if let waiter { waiter.resume(returning: item) }
        return result
    }

    /// Asks the writer to close the socket with `code` once its current write is done;
    /// frames still queued are dropped.
    func close(_ code: CloseCode, reason: String) {
        requestClose(.close(code, reason: reason), droppingQueued: true)
    }

    /// Asks the writer to write the frames already queued (such as the error that explains
    /// the close) and then close the socket with `code`. Nothing queued later is written.
    func closeAfterQueued(_ code: CloseCode, reason: String) {
        requestClose(.close(code, reason: reason), droppingQueued: false)
    }

    private func requestClose(_ close: Item, droppingQueued: Bool) {
        let waiter = state.withLock { $0.requestClose(close, droppingQueued: droppingQueued) }
        waiter?.resume(returning: close)
    }

    /// Ends the queue: the writer's next call returns nil, unless a close was requested, which
    /// still goes out after the frames it keeps.
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

    /// The next item for the writer, waiting for one: queued frames, then the close if one was
    /// requested; nil after that or once finished.
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Item?? in
                    if !state.finished || state.close != nil, let (frame, queuedAt) = state.frames.popFirst() {
                        return .some(.frame(frame, queuedAt: queuedAt))
                    }
                    if let close = state.close.take() {
                        state.finished = true
                        return .some(close)
                    }
                    if state.finished { return .some(nil) }
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
