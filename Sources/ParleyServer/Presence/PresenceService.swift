import Logging
import ParleyCore
import ParleyStore

/// Presence: what a user may see of others (`GET /v1/presence`), and telling friends of a
/// change as it happens, as a `presence` signal through the fan-out to every node.
struct PresenceService: Sendable {
    let store: any ParleyStore
    let fanOut: any FanOut
    let logger: Logger

    /// The presence of `ids` (at most ``PresenceRules/maxUsersPerQuery``, each once) as the
    /// caller may see it, or of all their friends when `ids` is nil.
    func presence(of ids: [UserID]?, for identity: Identity) async throws -> PresenceList {
        guard let ids else { return PresenceList(users: try await store.friendsPresence(for: identity.userId)) }
        guard (1...PresenceRules.maxUsersPerQuery).contains(ids.count), Set(ids).count == ids.count else {
            throw ParleyError(
                .invalidField, "'userIds' must list 1 to \(PresenceRules.maxUsersPerQuery) different user ids.")
        }
        return PresenceList(users: try await store.presence(of: ids, for: identity.userId))
    }

    /// Tells each user's watchers (``PresenceStore/presenceWatchers(of:)``) that they came
    /// online or went offline.
    func announce(_ changes: [PresenceChange]) async throws {
        for change in changes {
            let presence =
                change.online
                ? Presence(userId: change.userId, status: .online)
                : Presence(userId: change.userId, status: .offline, lastSeenAt: change.at)
            try await send(presence, to: try await store.presenceWatchers(of: change.userId))
        }
    }

    /// After the user changed who sees their presence: their friends get it as they may now
    /// see it (`hidden` when it is `nobody`). Best effort, after the change is committed: a
    /// failure is logged, and friends see the new setting when they next ask.
    func visibilityChanged(of userId: UserID) async {
        do {
            let friends = try await store.contacts(of: userId, in: nil).map(\.user.id)
            guard let friend = friends.first, let presence = try await store.presence(of: [userId], for: friend).first
            else { return }
            try await send(presence, to: friends)
        } catch {
            logger.warning("Cannot tell friends of a presence setting", metadata: ["error": "\(error)"])
        }
    }

    private func send(_ presence: Presence, to recipients: [UserID]) async throws {
        guard !recipients.isEmpty else { return }
        try await fanOut.send(
            Signal(
                type: ServerFrameType.presence.rawValue, recipients: recipients,
                payload: try JSONText.decode(JSONValue.self, from: JSONText.encode(presence))))
    }
}
