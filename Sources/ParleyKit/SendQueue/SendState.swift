import ParleyCore

/// Where one queued message stands, as its ``SendHandle`` reports it.
public enum SendState: Sendable, Hashable {
    /// Stored and shown; waiting its turn, what it depends on, or a connection.
    case queued
    /// Its files are being uploaded (or found on the server by hash): how many of their
    /// bytes are there. A transport failure puts it back to `queued`; the upload resumes.
    case uploading(TransferProgress)
    /// Its request is on its way to the server. A transport failure puts it back to `queued`.
    case sending
    /// Committed by the server at this seq. Final.
    case sent(seq: Int64)
    /// Gave up: `retryable` failures (timeout, network, a dependency that may succeed on a
    /// second try) can be resent as they are; others cannot succeed unchanged.
    case failed(reason: String, retryable: Bool)
    /// Dropped from the queue before it was sent. Final.
    case cancelled

    /// Whether no further state can follow (`failed` can still be resent).
    public var isFinal: Bool {
        switch self {
        case .sent, .cancelled: true
        case .queued, .uploading, .sending, .failed: false
        }
    }

    /// Whether it is sent, failed or cancelled: no longer moving on its own.
    public var isSettled: Bool {
        if case .failed = self { return true }
        return isFinal
    }
}

/// One change in the send queue, for observers of a whole conversation (a ``ChatContext``).
public struct SendUpdate: Sendable {
    /// The item as stored after the change (as it was last stored, once cancelled).
    public var item: OutboxItem
    public var state: SendState
    /// The committed message, when `state` is `sent`.
    public var message: Message?
}
