import ParleyCore

/// Work that must finish before a queued message may be sent: an upload before the message
/// that refers to it.
///
/// The work starts when the message is queued, so it runs while earlier messages are sent.
/// The message waits for it at the head of the queue, and the messages queued after it wait
/// behind it (the queue keeps its order). If the work throws, the message fails: not
/// retryable when it threw a ``ParleyError`` the server answered with a 4xx status other than
/// 429 (it cannot succeed unchanged), retryable otherwise; a resend runs the work again.
///
/// Dependencies live in memory only: they are not persisted. An item queued with one that
/// is still in the store after the process restarts is failed, not retryable, rather than
/// sent without what it depended on.
public struct SendDependency: Sendable {
    let work: @Sendable () async throws -> Void

    /// A dependency on `work`, which must return without throwing before the message is sent.
    public init(_ work: @escaping @Sendable () async throws -> Void) {
        self.work = work
    }
}
