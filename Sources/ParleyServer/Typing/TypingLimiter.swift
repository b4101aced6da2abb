import NIOCore
import ParleyCore
import Synchronization

/// Decides which typing frames go on to the other members: a start at most once per
/// ``Limits/typingMinIntervalMs`` per sender and conversation (clients repeat it every
/// ``Limits/typingRefreshMs`` while typing; a client that sends more must not flood a group,
/// and a refresh that comes a little early must still go out, or receivers would see the
/// indicator expire), a stop only after a start went out. Per node:
/// a user typing on two nodes at once may be forwarded by both.
final class TypingLimiter: Sendable {
    private struct Key: Hashable {
        let userId: UserID
        let conversationId: ConversationID
    }

    /// When each sender's last start went out (uptime ns); absent after a stop.
    private let lastStart = Mutex<(starts: [Key: UInt64], calls: Int)>(([:], 0))
    private let interval: UInt64

    init(intervalMs: Int64 = Limits.typingMinIntervalMs) {
        interval = UInt64(intervalMs) * 1_000_000
    }

    /// Whether this frame is forwarded.
    func admit(
        _ typing: Bool, from userId: UserID, in conversationId: ConversationID,
        now: UInt64 = NIODeadline.now().uptimeNanoseconds
    ) -> Bool {
        let key = Key(userId: userId, conversationId: conversationId)
        return lastStart.withLock { state in
            state.calls += 1
            if state.calls % 1024 == 0 { state.starts = state.starts.filter { now &- $0.value < 10 * interval } }
            guard typing else { return state.starts.removeValue(forKey: key) != nil }
            if let last = state.starts[key], now &- last < interval { return false }
            state.starts[key] = now
            return true
        }
    }
}
