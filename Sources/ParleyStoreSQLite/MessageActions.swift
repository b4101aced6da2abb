import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func message(_ id: MessageID, readableBy userId: UserID) async throws -> Message {
        try await pool.read { db in try Self.readableMessage(db, id, by: userId) }
    }

    public func message(sentBy senderId: UserID, clientMsgId: String) async throws -> Message? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM messages WHERE sender_id = ? AND client_msg_id = ?",
                arguments: [senderId.rawValue, clientMsgId]
            ).map { try Message(row: $0) }
        }
    }

    public func changeMessage(
        _ id: MessageID, _ change: MessageChange, by userId: UserID, windows: MessageWindows, at now: Int64
    ) async throws -> Message {
        try await write { db in
            let message = try Self.readableMessage(db, id, by: userId)
            let conversation = try Row.fetchOne(
                db, sql: "SELECT kind, dissolved_at, mute_all FROM conversations WHERE id = ?",
                arguments: [message.conversationId.rawValue])!
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM members WHERE conversation_id = ?", arguments: [message.conversationId.rawValue]
            )
            let members = rows.map(Member.init(row:))
            let state = MessageChangeState(
                message: message, conversationKind: ConversationRules.kind(stored: conversation["kind"]),
                dissolvedAt: conversation["dissolved_at"], muteAll: conversation["mute_all"],
                actor: members.first { $0.userId == userId },
                senderRole: members.first { $0.userId == message.senderId }?.role)
            let updated = try MessageRules.decide(change, in: state, by: userId, windows: windows, at: now)
            // An edit in a direct conversation is a new text to the peer, as a send is.
            if case .edit = change, state.conversationKind == .direct,
                let peer = members.first(where: { $0.userId != userId })?.userId
            {
                try self.checkCanMessage(db, from: userId, to: peer)
            }
            try db.execute(
                sql: "UPDATE messages SET kind = ?, content = ?, quote = ?, forwarded = ?, edited_at = ? WHERE id = ?",
                arguments: [
                    updated.kind.rawValue, try JSONText.encode(updated.content), try updated.quote.map(JSONText.encode),
                    updated.isForwarded, updated.editedAt, id.rawValue,
                ])
            try Self.index(db, id, folded: updated.searchableText.map(SearchText.fold))
            if updated.isRecalled {
                try db.execute(
                    sql: "DELETE FROM mentions WHERE conversation_id = ? AND seq = ?",
                    arguments: [message.conversationId.rawValue, message.seq])
                try Self.releaseFiles(db, of: id, at: now)
            }
            if updated.isRecalled {
                // Earlier edits of it leave no text behind in anyone's event stream.
                for event in try Row.fetchAll(
                    db, sql: "SELECT user_id, seq, body FROM user_events WHERE message_id = ?", arguments: [id.rawValue]
                ) {
                    let redacted = MessageRules.redacted(
                        try JSONText.decode(UserEvent.self, from: event["body"]), recalled: updated)
                    try db.execute(
                        sql: "UPDATE user_events SET body = ? WHERE user_id = ? AND seq = ?",
                        arguments: [try JSONText.encode(redacted), event["user_id"], event["seq"]])
                }
            }
            try db.execute(
                sql: "UPDATE messages SET quote = ? WHERE reply_to_id = ? AND kind <> 'recalled'",
                arguments: [try JSONText.encode(MessageQuote(of: updated)), id.rawValue])
            try db.execute(
                sql: "UPDATE conversations SET version = ? WHERE id = ?",
                arguments: [try self.nextVersion(db), message.conversationId.rawValue])
            // Members who deleted the message for themselves, or cleared past it, hear nothing.
            let deletedBy = Set(
                try Int64.fetchAll(
                    db, sql: "SELECT user_id FROM deleted_messages WHERE conversation_id = ? AND seq = ?",
                    arguments: [message.conversationId.rawValue, message.seq]))
            let audience = rows.filter {
                MessageRules.stillSees(
                    message.seq, deleted: deletedBy.contains($0["user_id"]), clearedUpTo: $0["cleared_seq"])
            }.map { UserID($0["user_id"]) }
            try self.announce(
                db, [Announcement(to: audience, MessageUpdated(message: updated, updatedBy: userId).body)], at: now)
            return updated
        }
    }

    public func deleteMessages(_ seqs: [Int64], in conversationId: ConversationID, for userId: UserID, at now: Int64)
        async throws -> MessagesDeleted
    {
        try await write { db in
            let deleted = try MessageRules.seqsToDelete(
                seqs, readableUpTo: try Self.readableUpTo(db, conversationId, for: userId))
            for seq in deleted {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO deleted_messages (user_id, conversation_id, seq) VALUES (?, ?, ?)",
                    arguments: [userId.rawValue, conversationId.rawValue, seq])
            }
            // The summary's last message may now be a placeholder: the user's next sync resends it.
            try db.execute(
                sql: "UPDATE members SET version = ? WHERE conversation_id = ? AND user_id = ?",
                arguments: [try self.nextVersion(db), conversationId.rawValue, userId.rawValue])
            let payload = MessagesDeleted(conversationId: conversationId, seqs: deleted)
            try self.announce(db, [Announcement(to: [userId], payload.body)], at: now)
            return payload
        }
    }

    public func markDelivered(_ conversationId: ConversationID, by userId: UserID, upTo seq: Int64) async throws
        -> ReadReceipt
    {
        try await groupCommit.write(to: self) { db in
            // In a group the watermark only feeds the receipts list: no push, no resync.
            let watermark = try self.moveWatermark(db, "delivered_seq", of: userId, in: conversationId, to: seq) {
                $0 == .direct
            }
            let receipt = ReadReceipt(conversationId: conversationId, userId: userId, seq: watermark.seq)
            if watermark.moved && watermark.kind == .direct {
                let members = try self.members(db, of: conversationId, at: watermark.membersVersion)
                self.publishAfterCommit(db, .delivered(receipt, recipients: members))
            }
            return receipt
        }
    }

    public func receipts(of conversationId: ConversationID, for userId: UserID) async throws -> ReceiptList {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT user_id, read_seq, delivered_seq FROM members WHERE conversation_id = ? ORDER BY user_id",
                arguments: [conversationId.rawValue])
            let receipts = rows.map {
                MemberReceipt(
                    userId: UserID($0["user_id"]), readSeq: $0["read_seq"],
                    deliveredSeq: max($0["delivered_seq"], $0["read_seq"]))
            }
            try ConversationRules.requireMember(userId, of: receipts.map(\.userId), in: conversationId)
            return ReceiptList(conversationId: conversationId, members: receipts)
        }
    }

    /// Message `id` if `userId` may read it, else `message_not_found`.
    private static func readableMessage(_ db: Database, _ id: MessageID, by userId: UserID) throws -> Message {
        guard let message = try message(db, id),
            let upTo = try? readableUpTo(db, message.conversationId, for: userId), message.seq <= upTo
        else { throw MessageRules.notFound(id) }
        return message
    }

    /// How far `userId` may read conversation `id` (its last seq for a member); throws as
    /// ``ConversationRules/readableUpTo(_:isMember:formerReadUpTo:exists:)`` does.
    static func readableUpTo(_ db: Database, _ id: ConversationID, for userId: UserID) throws -> Int64 {
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM members WHERE conversation_id = ?1 AND user_id = ?2) AS member,
                    (SELECT read_up_to FROM former_members WHERE conversation_id = ?1 AND user_id = ?2) AS former,
                    (SELECT max_seq FROM conversations WHERE id = ?1) AS max_seq
                """,
            arguments: [id.rawValue, userId.rawValue])!
        let maxSeq: Int64? = row["max_seq"]
        let upTo = try ConversationRules.readableUpTo(
            id, isMember: row["member"], formerReadUpTo: row["former"], exists: maxSeq != nil)
        return upTo ?? maxSeq ?? 0
    }
}
