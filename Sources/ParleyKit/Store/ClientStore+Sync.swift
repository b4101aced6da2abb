import GRDB
import ParleyCore

/// What sync and pushed events bring.
extension ClientStore {
    /// Applies one sync page and its new cursor in one transaction, so the cursor never
    /// runs ahead of what is stored. Returns the messages not held before.
    package func applySync(_ response: SyncResponse) throws -> [Message] {
        try writer.write { db in
            // A sync without a cursor is a snapshot: the events before it are never replayed,
            // so the member lists held may have missed changes and are to be fetched again.
            if try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.cursorKey]) == nil
            {
                try db.execute(sql: "UPDATE conversations SET members_known = 0")
            }
            var inserted: [Message] = []
            let eventsCovered = max(try Self.syncedEventSeq(db), response.events.map(\.seq).max() ?? 0)
            for conversation in response.conversations {
                try Self.saveConversation(db, conversation, eventsCovered: eventsCovered)
                if let last = conversation.lastMessage, try Self.insert(db, last) { inserted.append(last) }
            }
            for event in response.events { try Self.apply(db, event) }
            try Self.setValue(db, response.cursor, for: Self.cursorKey)
            try Self.setValue(db, "\(eventsCovered)", for: Self.syncedEventSeqKey)
            return inserted
        }
    }

    /// Applies an event pushed on the socket (it will come again in the next sync; applying
    /// twice is harmless).
    package func applyEvent(_ event: UserEvent) throws {
        try writer.write { db in try Self.apply(db, event) }
    }

    static func syncedEventSeq(_ db: Database) throws -> Int64 {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [syncedEventSeqKey])
            .flatMap { Int64($0) } ?? 0
    }

    private static func apply(_ db: Database, _ event: UserEvent) throws {
        // Events come in stream order, so the last one of a kind leaves the latest state; group
        // events carry their seq so that one applied late never undoes a newer one.
        switch event.body {
        case .readMoved(let moved):
            try db.execute(
                sql: "UPDATE conversations SET read_seq = MAX(read_seq, ?) WHERE id = ?",
                arguments: [moved.readSeq, moved.conversationId.rawValue])
        case .profileUpdated(let updated):
            try saveUser(db, updated.account.user)
        case .conversationUpdated(let updated):
            try applyProfile(db, updated, seq: event.seq)
        case .conversationAdded(let added):
            try rejoin(db, added.conversationId, seq: event.seq)
        case .conversationRemoved(let removed):
            try depart(db, removed, seq: event.seq)
        case .membersAdded(let added):
            try addMembers(db, added.userIds, to: added.conversationId, at: event.at, seq: event.seq)
        case .membersUpdated(let updated):
            try saveMembers(db, updated.members, of: updated.conversationId, seq: event.seq)
        case .membersRemoved(let removed):
            try removeMembers(db, removed.userIds, from: removed.conversationId, seq: event.seq)
        case .joinRequestUpdated(let updated):
            try saveJoinRequests(db, [updated.request], seq: event.seq)
        case .settingsUpdated(let updated):
            try applySettings(db, updated, seq: event.seq)
        case .unknown, .messageUpdated, .messagesDeleted:
            break
        }
    }

    /// `settings.updated`: the user's settings as they now stand, unless a newer event set them.
    static func applySettings(_ db: Database, _ updated: SettingsUpdated, seq: Int64) throws {
        try db.execute(
            sql: "UPDATE conversations SET settings = ?, settings_seq = ? WHERE id = ? AND settings_seq < ?",
            arguments: [try JSONText.encode(updated.settings), seq, updated.conversationId.rawValue, seq])
    }
}
