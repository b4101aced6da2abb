import ParleyCore
import ParleyStore

/// Typing indicators: checked (the sender must be a member who may send now: not muted, the
/// group not dissolved), rate-limited
/// (``TypingLimiter``), then sent to the other members' devices on every node as a signal
/// through the fan-out. Nothing is stored.
struct TypingService: Sendable {
    let store: any ParleyStore
    let fanOut: any FanOut
    let clock: WallClock
    let limiter = TypingLimiter()

    func typing(_ typing: Bool, in conversationId: ConversationID, by identity: Identity) async throws {
        let detail = try await store.conversation(conversationId, for: identity.userId)
        if typing, let me = detail.members.first(where: { $0.userId == identity.userId }) {
            try GroupRules.checkCanSend(
                role: me.role, mutedUntil: me.mutedUntil, muteAll: detail.conversation.group?.muteAll ?? false,
                dissolvedAt: detail.conversation.group?.dissolvedAt, in: conversationId, at: clock.now())
        }
        let members = detail.members.map(\.userId)
        // Nobody types to someone who blocked them, or whom they blocked.
        if typing, detail.conversation.kind == .direct, let peer = detail.conversation.peerId,
            !(try await store.blocked(between: identity.userId, and: [peer])).isEmpty
        {
            throw ParleyError(.blocked, "Typing is not shown between users who blocked one another.")
        }
        guard limiter.admit(typing, from: identity.userId, in: conversationId) else { return }
        let notice = TypingNotice(
            conversationId: conversationId, userId: identity.userId, typing: typing,
            expiresInMs: Limits.typingExpiryMs)
        try await fanOut.send(
            Signal(
                type: ServerFrameType.typing.rawValue, recipients: members.filter { $0 != identity.userId },
                payload: try JSONText.decode(JSONValue.self, from: JSONText.encode(notice))))
    }
}
