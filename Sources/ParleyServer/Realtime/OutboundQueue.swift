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
///
/// A writer runs only while there is something to write: the queue starts one (see
/// ``startWriters(with:)``) when work arrives and none runs, and the writer takes items
/// until ``take()`` answers nil. The gateway's writer is a pass on the socket's event loop
/// (``GatewayChannelHandler``), so frames queued while one is scheduled share its flush.
/// A frame that may wait (``enqueue(_:now:unhurried:)``) starts its writer after
/// ``unhurriedDelay``, so that the frames queued meanwhile share one write; any other work
/// starts it again at once.
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
        /// Starts a writer, at once or after a delay; nil until the socket can be written, and
        /// again once finished.
        var startWriter: (@Sendable (_ delay: Duration?) -> Void)?
        /// Whether a writer runs: started, and not yet answered nil by ``take()``.
        var writing = false
        /// Whether the running writer was started with a delay, and not again at once since.
        var delayed = false

        /// Whether the writer has anything left to take.
        var hasWork: Bool { close != nil || (!finished && !frames.isEmpty) }

        /// Answers the writer to start, marking it running, when there is work and none runs
        /// (after ``unhurriedDelay`` for work that may wait), or when work that may not wait
        /// finds the writer delayed (at once: the writer must then run its passes one at a time,
        /// as the gateway's do on their event loop).
        mutating func claimWriter(unhurried: Bool = false) -> (@Sendable () -> Void)? {
            guard hasWork, let startWriter else { return nil }
            if !writing {
                writing = true
                delayed = unhurried
                let delay = unhurried ? OutboundQueue.unhurriedDelay : nil
                return { startWriter(delay) }
            }
            guard delayed, !unhurried else { return nil }
            delayed = false
            return { startWriter(nil) }
        }

        /// Records a close request; answers the writer to start for it, if one must be.
        mutating func requestClose(_ close: Item, droppingQueued: Bool) -> (@Sendable () -> Void)? {
            guard self.close == nil, !finished else { return nil }
            if droppingQueued { frames.removeAll() }
            self.close = close
            return claimWriter()
        }
    }

    let limit: Int
    private let state = Mutex(State())
    /// How long a frame that may wait holds its writer back, for company.
    static let unhurriedDelay: Duration = .milliseconds(50)

    init(limit: Int) { self.limit = limit }

    /// From now on, calls `start` whenever work arrives and no writer runs (and at once if
    /// work is waiting). `start` begins a writer that calls ``take()`` until it answers nil,
    /// after the delay it is given, if any.
    func startWriters(with start: @escaping @Sendable (_ delay: Duration?) -> Void) {
        let writer = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished else { return nil }
            state.startWriter = start
            return state.claimWriter()
        }
        writer?()
    }

    /// Queues a frame without waiting. An `unhurried` frame may wait ``unhurriedDelay`` for
    /// others to share its write; it still goes out after the frames queued before it.
    @discardableResult
    func enqueue(
        _ frame: String, now: UInt64 = NIODeadline.now().uptimeNanoseconds, unhurried: Bool = false
    ) -> EnqueueResult {
        let (result, writer) = state.withLock { state -> (EnqueueResult, (@Sendable () -> Void)?) in
            guard state.close == nil, !state.finished else { return (.closing, nil) }
            if state.frames.count >= limit {
                let close = Item.close(.slowConsumer, reason: "Too far behind; reconnect and sync.")
                return (.overflowed, state.requestClose(close, droppingQueued: true))
            }
            state.frames.append((frame, now))
            return (.queued, state.claimWriter(unhurried: unhurried))
        }
        writer?()
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
        let writer = state.withLock { $0.requestClose(close, droppingQueued: droppingQueued) }
        writer?()
    }

    /// Ends the queue: the writer takes nothing more, unless a close was requested, which
    /// still goes out after the frames it keeps. No writer starts after that close.
    func finish() {
        let writer = state.withLock { state -> (@Sendable () -> Void)? in
            state.finished = true
            if state.close == nil { state.frames.removeAll() }
            defer { state.startWriter = nil }
            return state.claimWriter()
        }
        writer?()
    }

    /// Ends the queue after a write failed: nothing more goes out, not even a requested
    /// close, so the writer's next ``take()`` answers nil.
    func abandon() {
        state.withLock { state in
            state.finished = true
            state.close = nil
            state.frames.removeAll()
            state.startWriter = nil
        }
    }

    /// Frames waiting to be written.
    var count: Int { state.withLock { $0.frames.count } }

    /// Whether the socket is being closed.
    var isClosing: Bool { state.withLock { $0.close != nil || $0.finished } }

    /// The writer's next item: queued frames, then the close if one was requested. Nil when
    /// there is nothing to write, and the writer must then stop: the next work starts another.
    func take() -> Item? {
        state.withLock { state in
            if !state.finished || state.close != nil, let (frame, queuedAt) = state.frames.popFirst() {
                return .frame(frame, queuedAt: queuedAt)
            }
            if let close = state.close.take() {
                state.finished = true
                return close
            }
            state.writing = false
            state.delayed = false
            return nil
        }
    }
}
