import GRDB
import ParleyCore

/// What sync and pushed events bring.
extension ClientStore {
    /// Applies one sync page and its new cursor in one transaction, so the cursor never
    /// runs ahead of what is stored. Returns what changed in the messages shown.
    ///
    /// A summary's count of unread mentions is as the server saw it when it read the page,
    /// after the page's events (and those of the later pages of the same run): a recall in
    /// them, of a mention, is already left out. So the events do not count mentions again in
    /// the conversations summarised in this page or in `summarized` (the earlier pages of the
    /// run); elsewhere, they do.
    ///
    /// `pushed` are the events pushed while the page was fetched: those above the page's
    /// events may be newer than what it says (it was read before they were written), so they
    /// are applied again after it, in the same transaction.
    package func applySync(
        _ response: SyncResponse, summarized: Set<ConversationID> = [], replaying pushed: [UserEvent] = []
    ) throws -> StoreChanges {
        try writer.write { db in
            // A sync without a cursor is a snapshot: the events before it are never replayed,
            // so the member lists, contacts and notification preferences held may have missed
            // changes and are to be fetched again.
            if try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.cursorKey]) == nil
            {
                try db.execute(sql: "UPDATE conversations SET members_known = 0")
                try Self.setValue(db, nil, for: Self.contactsKnownKey)
                try Self.setValue(db, nil, for: Self.notificationSettingsKey)
            }
            var changes = StoreChanges()
            let eventsCovered = max(try Self.syncedEventSeq(db), response.events.map(\.seq).max() ?? 0)
            let summarized = summarized.union(response.conversations.map(\.id))
            for conversation in response.conversations {
                changes.merge(try Self.saveConversation(db, conversation, eventsCovered: eventsCovered))
                if let last = conversation.lastMessage {
                    changes.merge(try Self.store(db, last, countsMentions: false))
                }
            }
            for event in response.events { changes.merge(try Self.apply(db, event, summarized: summarized)) }
            for event in pushed where event.seq > eventsCovered {
                changes.merge(try Self.apply(db, event, summarized: summarized))
            }
            try Self.setValue(db, response.cursor, for: Self.cursorKey)
            try Self.setValue(db, "\(eventsCovered)", for: Self.syncedEventSeqKey)
            return changes.ordered
        }
    }

    /// Applies an event pushed on the socket (it will come again in the next sync; applying
    /// twice is harmless). One a sync page already brought is skipped: the events after it
    /// in that page were applied after it, and it would undo them. Returns what changed in
    /// the messages shown.
    @discardableResult
    package func applyEvent(_ event: UserEvent) throws -> StoreChanges {
        try writer.write { db in
            guard event.seq > (try Self.syncedEventSeq(db)) else { return StoreChanges() }
            return try Self.apply(db, event).ordered
        }
    }

    static func syncedEventSeq(_ db: Database) throws -> Int64 {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [syncedEventSeqKey])
            .flatMap { Int64($0) } ?? 0
    }

    /// Applies one event; a recall in a conversation of `summarized` leaves its count of
    /// unread mentions alone (see ``applySync(_:summarized:replaying:)``).
    private static func apply(_ db: Database, _ event: UserEvent, summarized: Set<ConversationID> = []) throws
        -> StoreChanges
    {
        // Events come in stream order, so the last one of a kind leaves the latest state; group,
        // settings, contact and profile events carry their seq so that one applied late never
        // undoes a newer one (contact, profile and notification events through `claim`); a message is
        // replaced only by a newer form of it.
        switch event.body {
        case .readMoved(let moved):
            try markRead(db, moved.conversationId, upTo: moved.readSeq)
        case .messageUpdated(let updated):
            return try store(
                db, updated.message, countsMentions: !summarized.contains(updated.message.conversationId))
        case .messagesDeleted(let deleted):
            return try hide(db, deleted.conversationId, seqs: deleted.seqs)
        case .profileUpdated(let updated):
            guard try claim(db, .profile, updated.account.user.id.rawValue, seq: event.seq) else { break }
            try saveUser(db, updated.account.user)
        case .conversationUpdated(let updated):
            try applyProfile(db, updated, seq: event.seq)
        case .conversationAdded(let added):
            try rejoin(db, added.conversationId, seq: event.seq)
        case .conversationRemoved(let removed):
            try depart(db, removed, seq: event.seq)
        case .membersUpdated(let updated):
            try saveMembers(db, updated.members, of: updated.conversationId, seq: event.seq)
        case .membersRemoved(let removed):
            try removeMembers(db, removed, seq: event.seq)
        case .joinRequestUpdated(let updated):
            try saveJoinRequests(db, [updated.request], seq: event.seq)
        case .settingsUpdated(let updated):
            try applySettings(db, updated, seq: event.seq)
            return try hideCleared(db, updated.conversationId)
        case .friendRequestUpdated(let updated):
            guard try claimContact(db, .request, updated.request.id.rawValue, seq: event.seq) else { break }
            try saveFriendRequest(db, updated.request)
        case .contactUpdated(let updated):
            guard try claimContact(db, .friend, updated.contact.user.id.rawValue, seq: event.seq) else { break }
            try saveContact(db, try withoutGroupsRemovedAfter(event.seq, updated.contact, db))
        case .contactRemoved(let removed):
            guard try claimContact(db, .friend, removed.userId.rawValue, seq: event.seq, removes: true) else { break }
            try removeContact(db, removed.userId)
        case .blockAdded(let added):
            guard try claimContact(db, .block, added.blocked.user.id.rawValue, seq: event.seq) else { break }
            try saveBlock(db, added.blocked)
        case .blockRemoved(let removed):
            guard try claimContact(db, .block, removed.userId.rawValue, seq: event.seq, removes: true) else { break }
            try removeBlock(db, removed.userId)
        case .friendGroupUpdated(let updated):
            guard try claimContact(db, .friendGroup, updated.group.id.rawValue, seq: event.seq) else { break }
            try saveFriendGroup(db, updated.group)
        case .friendGroupRemoved(let removed):
            guard try claimContact(db, .friendGroup, removed.groupId.rawValue, seq: event.seq, removes: true) else {
                break
            }
            try removeFriendGroup(db, removed.groupId)
        case .notificationsUpdated(let updated):
            try applyNotificationSettings(db, updated, seq: event.seq)
        case .unknown:
            break
        }
        return StoreChanges()
    }

    /// What an event kept in `event_marks` is about, with the id of that thing: a friend
    /// request (by its id), a friend or a block (by the user's id), a friend group (by its
    /// id), the user's own profile (by their id), their notification preferences (id 0).
    enum EventTopic: String {
        case request, friend, block, profile, notifications
        case friendGroup = "friend_group"
    }

    /// Records that event `seq` set `topic` `id` (or, with `removes`, removed it); false, and
    /// nothing recorded, when an event with a higher seq about it was applied already: the
    /// event is then to be skipped. The same event again is applied again: what it carries
    /// may have been overwritten meanwhile by writes that keep no seq (a profile that an
    /// older friend request or an HTTP answer carried).
    static func claim(_ db: Database, _ topic: EventTopic, _ id: Int64, seq: Int64, removes: Bool = false) throws
        -> Bool
    {
        let applied = try Int64.fetchOne(
            db, sql: "SELECT seq FROM event_marks WHERE topic = ? AND id = ?", arguments: [topic.rawValue, id])
        if let applied, applied > seq { return false }
        try db.execute(
            sql: "INSERT OR REPLACE INTO event_marks (topic, id, seq, removed) VALUES (?, ?, ?, ?)",
            arguments: [topic.rawValue, id, seq, removes])
        return true
    }

    /// ``claim(_:_:_:seq:removes:)`` for a contact event, noted first for a whole fetch of the
    /// contact book that may be under way (``noteContactEvent(_:seq:)``): even an event
    /// skipped here came in while that fetch ran.
    static func claimContact(_ db: Database, _ topic: EventTopic, _ id: Int64, seq: Int64, removes: Bool = false)
        throws -> Bool
    {
        try noteContactEvent(db, seq: seq)
        return try claim(db, topic, id, seq: seq, removes: removes)
    }

    /// `settings.updated`: the user's settings as they now stand, unless a newer event set them.
    static func applySettings(_ db: Database, _ updated: SettingsUpdated, seq: Int64) throws {
        try db.execute(
            sql: "UPDATE conversations SET settings = ?, settings_seq = ? WHERE id = ? AND settings_seq < ?",
            arguments: [try JSONText.encode(updated.settings), seq, updated.conversationId.rawValue, seq])
    }
}
