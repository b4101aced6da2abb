import ParleyCore

/// A message in the ``SendQueue``, from the moment it is queued: its id, its state now and
/// as it changes, and the actions on it.
public struct SendHandle: Sendable, Hashable {
    /// The id the server deduplicates retries by; stays the same across resends.
    public let clientMsgId: String
    public let conversationId: ConversationID
    let queue: SendQueue

    /// Where the message stands now.
    public var state: SendState {
        get async { await queue.state(of: clientMsgId) }
    }

    /// The server's error when it refused the message: its code (`muted`, `not_a_member`, …),
    /// its sentence, and for a mute when it ends (`until`). Nil unless it failed that way.
    public var rejection: ParleyError? {
        get async { await queue.rejection(of: clientMsgId) }
    }

    /// The state now, then every change, in order; ends after `sent` or `cancelled`.
    public func stateUpdates() async -> AsyncStream<SendState> {
        await queue.stateUpdates(of: clientMsgId)
    }

    /// Waits until the message is sent, failed or cancelled, and returns that state.
    @discardableResult
    public func settled() async -> SendState {
        for await state in await stateUpdates() where state.isSettled { return state }
        return await state
    }

    /// Puts a failed message back in the queue with its original id.
    public func resend() async throws { try await queue.resend(clientMsgId) }

    /// Drops a failed message, or one still waiting for its dependency.
    public func cancel() async throws { try await queue.cancel(clientMsgId) }

    public static func == (lhs: SendHandle, rhs: SendHandle) -> Bool {
        lhs.clientMsgId == rhs.clientMsgId && lhs.queue === rhs.queue
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(clientMsgId) }
}
