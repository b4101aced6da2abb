import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    /// The committed changes a NOTIFY names, read on `loader` where the note, this node's
    /// memory and its member cache do not hold them (called in notification order).
    func changes(for note: ChangeNote, on loader: LoadingConnection) async throws -> [StoreChange] {
        var result: [StoreChange] = []
        // A message this node stored is taken from memory, one from another node from the
        // note when it carries it; only a message too large to carry is read.
        var message = note.message.flatMap { ownMessages.take(MessageID($0)) }
        if message == nil, let id = note.message, let seq = note.seq, let carried = note.carried {
            message = try carried.message(id: id, seq: seq)
        }
        if message == nil, let id = note.message {
            message = try await loader.run { try await self.message($0, MessageID(id)) }
        }
        if let message {
            var recipients = try await members(loader, of: message.conversationId, at: note.membersVersion)
            recipients += (note.alsoTo ?? []).map { UserID($0) }.filter { !recipients.contains($0) }
            var origin: ConnectionTag?
            if let parts = note.origin?.split(separator: "/"), parts.count == 2, parts[0] == nodeID,
                let tag = UInt64(parts[1])
            {
                origin = ConnectionTag(tag)
            }
            result.append(.message(message, recipients: recipients, origin: origin))
        }
        if let pairs = note.events {
            // All the note's events in one query, then in the note's order.
            let wanted = pairs.filter { $0.count == 2 }
            let rows = try await loader.run { [logger] connection in
                try await connection.rows(
                    """
                    SELECT e.user_id, e.seq, e.body FROM user_events e
                    JOIN unnest(string_to_array($1, ',')::bigint[], string_to_array($2, ',')::bigint[]) AS w(user_id, seq)
                        ON e.user_id = w.user_id AND e.seq = w.seq
                    """,
                    [
                        .text(wanted.map { String($0[0]) }.joined(separator: ",")),
                        .text(wanted.map { String($0[1]) }.joined(separator: ",")),
                    ], logger: logger)
            }
            var bodies: [[Int64]: String] = [:]
            for row in rows { bodies[[try row.int("user_id"), try row.int("seq")]] = try row.text("body") }
            var events: [UserID: [String]] = [:]
            for pair in wanted {
                if let body = bodies[pair] { events[UserID(pair[0]), default: []].append(body) }
            }
            result.append(.events(events))
        }
        if let read = note.read, read.count == 3 {
            let receipt = ReadReceipt(conversationId: ConversationID(read[0]), userId: UserID(read[1]), seq: read[2])
            result.append(
                .read(
                    receipt,
                    recipients: try await members(loader, of: receipt.conversationId, at: note.membersVersion)))
        }
        if let delivered = note.delivered, delivered.count == 3 {
            let receipt = ReadReceipt(
                conversationId: ConversationID(delivered[0]), userId: UserID(delivered[1]), seq: delivered[2])
            result.append(
                .delivered(
                    receipt,
                    recipients: try await members(loader, of: receipt.conversationId, at: note.membersVersion)))
        }
        if let session = note.session { result.append(.sessionRevoked(SessionID(session))) }
        return result
    }

    /// The members of a conversation at members_version `version`: from the cache when it
    /// holds them, else read with the conversation's current version (one statement, so both
    /// agree) and cached. When the members have changed since `version`, the changes after it
    /// are undone, newest first, so that a late note never reaches someone who joined after
    /// its message or misses someone who left after it.
    private func members(_ loader: LoadingConnection, of id: ConversationID, at version: Int64?) async throws
        -> [UserID]
    {
        if let version, let cached = memberCache.members(of: id, at: version) { return cached }
        return try await loader.run { try await self.readMembers($0, of: id, at: version) }
    }

    /// ``members(_:of:at:)`` as the database holds them, cached at the current version.
    private func readMembers(_ connection: PostgresConnection, of id: ConversationID, at version: Int64?)
        async throws -> [UserID]
    {
        let rows = try await connection.rows(
            """
            SELECT c.members_version, m.user_id FROM conversations c
            LEFT JOIN members m ON m.conversation_id = c.id WHERE c.id = $1
            """,
            [.int(id.rawValue)], logger: logger)
        var members = try rows.compactMap { try $0.optionalInt("user_id").map { UserID($0) } }
        guard let current = try rows.first?.int("members_version") else { return members }
        memberCache.store(members, of: id, at: current)
        guard let version, version < current else { return members }
        let changes = try await connection.rows(
            """
            SELECT user_id, joined FROM member_changes WHERE conversation_id = $1 AND members_version > $2
            ORDER BY members_version DESC
            """,
            [.int(id.rawValue), .int(version)], logger: logger)
        for change in changes {
            let userId = UserID(try change.int("user_id"))
            if try change.bool("joined") {
                members.removeAll { $0 == userId }
            } else if !members.contains(userId) {
                members.append(userId)
            }
        }
        return members
    }
}
