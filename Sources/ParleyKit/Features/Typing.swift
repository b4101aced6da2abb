import ParleyCore

/// Typing indicators (`client.typing`): telling the other members that this user is typing,
/// and who is typing in a conversation now. Ephemeral: nothing is stored, and nothing is sent
/// while the socket is down (nobody could see it in time).
public actor Typing {
    private let connection: ConnectionManager
    private let time: TimeSource
    /// When this user's last start went out, per conversation.
    private var lastSent: [ConversationID: Duration] = [:]
    /// Who is typing, per conversation: when each started (for the order shown) and the
    /// generation of their latest notice (its expiry removes them only if none came since).
    private var typists: [ConversationID: [UserID: (started: Int, latest: Int)]] = [:]
    private var generation = 0
    private var watchers: [ConversationID: Subscribers<[UserID]>] = [:]

    init(connection: ConnectionManager, time: TimeSource) {
        self.connection = connection
        self.time = time
    }

    // MARK: This user

    /// The user typed in `conversationId` (call it on every change of the text): tells the
    /// other members, at most once per ``Limits/typingRefreshMs``.
    public func userIsTyping(in conversationId: ConversationID) async {
        let now = time.now()
        if let last = lastSent[conversationId], now - last < .milliseconds(Limits.typingRefreshMs) { return }
        lastSent[conversationId] = now
        await send(TypingRequest(conversationId: conversationId, typing: true))
    }

    /// The user stopped (cleared the text, or sent it): tells the others at once, if they
    /// were told of a start.
    public func userStoppedTyping(in conversationId: ConversationID) async {
        guard lastSent.removeValue(forKey: conversationId) != nil else { return }
        await send(TypingRequest(conversationId: conversationId, typing: false))
    }

    private func send(_ request: TypingRequest) async {
        guard await connection.status == .connected else { return }
        let _: EmptyPayload? = try? await connection.call(.typing, request, timeout: .seconds(5))
    }

    // MARK: Others

    /// Who is typing in `conversationId` now (in the order they started), then every change.
    public func typists(in conversationId: ConversationID) -> AsyncStream<[UserID]> {
        var subscribers = watchers[conversationId] ?? Subscribers()
        let stream = subscribers.add(initial: current(conversationId)) { [weak self] id in
            Task { await self?.unwatch(conversationId, id) }
        }
        watchers[conversationId] = subscribers
        return stream
    }

    private func unwatch(_ conversationId: ConversationID, _ id: Int) { watchers[conversationId]?.remove(id) }

    /// Applies a pushed notice: a start shows the typist until it expires unless refreshed; a
    /// stop removes them at once.
    func receive(_ notice: TypingNotice) {
        let id = notice.conversationId
        generation += 1
        let mine = generation
        if notice.typing {
            let started = typists[id]?[notice.userId]?.started
            typists[id, default: [:]][notice.userId] = (started ?? mine, mine)
            if started == nil { publish(id) }
            let (time, expiry) = (self.time, Duration.milliseconds(notice.expiresInMs))
            Task { [weak self] in
                try? await time.sleep(expiry)
                await self?.expire(notice.userId, in: id, generation: mine)
            }
        } else if typists[id]?.removeValue(forKey: notice.userId) != nil {
            publish(id)
        }
    }

    private func expire(_ userId: UserID, in conversationId: ConversationID, generation: Int) {
        guard typists[conversationId]?[userId]?.latest == generation else { return }
        typists[conversationId]?[userId] = nil
        publish(conversationId)
    }

    private func current(_ conversationId: ConversationID) -> [UserID] {
        (typists[conversationId] ?? [:]).sorted { $0.value.started < $1.value.started }.map(\.key)
    }

    private func publish(_ conversationId: ConversationID) {
        watchers[conversationId]?.yield(current(conversationId))
    }
}
