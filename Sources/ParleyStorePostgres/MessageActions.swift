import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func message(_ id: MessageID, readableBy userId: UserID) async throws -> Message {
        try await read { connection in try await self.readableMessage(connection, id, by: userId) }
    }

    public func message(sentBy senderId: UserID, clientMsgId: String) async throws -> Message? {
        try await read { connection in
            try await connection.rows(
                "SELECT * FROM messages WHERE sender_id = $1 AND client_msg_id = $2",
                [.int(senderId.rawValue), .text(clientMsgId)], logger: self.logger
            ).first.map { try Message(row: $0) }
        }
    }

    public func changeMessage(
        _ id: MessageID, _ change: MessageChange, by userId: UserID, windows: MessageWindows, at now: Int64
    ) async throws -> Message {
        try await write { connection, notes in
            let message = try await self.readableMessage(connection, id, by: userId)
            let conversationId = message.conversationId
            // The conversation row is locked first, as every write to a conversation does.
            let conversation = try await connection.rows(
                "SELECT kind, dissolved_at, mute_all FROM conversations WHERE id = $1 FOR UPDATE",
                [.int(conversationId.rawValue)], logger: self.logger)[0]
            let rows = try await connection.rows(
                "SELECT * FROM members WHERE conversation_id = $1", [.int(conversationId.rawValue)], logger: self.logger
            )
            let members = try rows.map(Member.init(row:))
            let state = MessageChangeState(
                message: try await self.message(connection, id) ?? message,
                conversationKind: ConversationRules.kind(stored: try conversation.text("kind")),
                dissolvedAt: try conversation.optionalInt("dissolved_at"), muteAll: try conversation.bool("mute_all"),
                actor: members.first { $0.userId == userId },
                senderRole: members.first { $0.userId == message.senderId }?.role)
            let updated = try MessageRules.decide(change, in: state, by: userId, windows: windows, at: now)
            // An edit in a direct conversation is a new text to the peer, as a send is.
            if case .edit = change, state.conversationKind == .direct,
                let peer = members.first(where: { $0.userId != userId })?.userId
            {
                try await self.checkCanMessage(connection, from: userId, to: peer)
            }
            try await connection.rows(
                "UPDATE messages SET kind = $1, content = $2, quote = $3, forwarded = $4, edited_at = $5 WHERE id = $6",
                [
                    .text(updated.kind.rawValue), .text(try JSONText.encode(updated.content)),
                    SQLValue(try updated.quote.map(JSONText.encode)), .bool(updated.isForwarded),
                    SQLValue(updated.editedAt), .int(id.rawValue),
                ], logger: self.logger)
            try await self.index(connection, id, folded: updated.searchableText.map(SearchText.fold))
            if updated.isRecalled {
                try await connection.rows(
                    "DELETE FROM mentions WHERE conversation_id = $1 AND seq = $2",
                    [.int(conversationId.rawValue), .int(message.seq)], logger: self.logger)
                try await self.releaseFiles(connection, of: id, at: now)
            }
            if updated.isRecalled {
                // Earlier edits of it leave no text behind in anyone's event stream.
                for event in try await connection.rows(
                    "SELECT user_id, seq, body FROM user_events WHERE message_id = $1", [.int(id.rawValue)],
                    logger: self.logger)
                {
                    let redacted = MessageRules.redacted(
                        try JSONText.decode(UserEvent.self, from: try event.text("body")), recalled: updated)
                    try await connection.rows(
                        "UPDATE user_events SET body = $1 WHERE user_id = $2 AND seq = $3",
                        [
                            .text(try JSONText.encode(redacted)), .int(try event.int("user_id")),
                            .int(try event.int("seq")),
                        ],
                        logger: self.logger)
                }
            }
            try await connection.rows(
                "UPDATE messages SET quote = $1 WHERE reply_to_id = $2 AND kind <> 'recalled'",
                [.text(try JSONText.encode(MessageQuote(of: updated))), .int(id.rawValue)], logger: self.logger)
            try await connection.rows(
                "UPDATE conversations SET version = $1 WHERE id = $2",
                [.int(try await self.nextVersion(connection)), .int(conversationId.rawValue)], logger: self.logger)
            // Members who deleted the message for themselves, or cleared past it, hear nothing.
            let deletedBy = Set(
                try await connection.rows(
                    "SELECT user_id FROM deleted_messages WHERE conversation_id = $1 AND seq = $2",
                    [.int(conversationId.rawValue), .int(message.seq)], logger: self.logger
                ).map { try $0.int("user_id") })
            let audience = try rows.filter {
                MessageRules.stillSees(
                    message.seq, deleted: deletedBy.contains(try $0.int("user_id")),
                    clearedUpTo: try $0.optionalInt("cleared_seq"))
            }.map { UserID(try $0.int("user_id")) }
            try await self.announce(
                connection, notes,
                [Announcement(to: audience, MessageUpdated(message: updated, updatedBy: userId).body)],
                at: now)
            return updated
        }
    }

    public func deleteMessages(_ seqs: [Int64], in conversationId: ConversationID, for userId: UserID, at now: Int64)
        async throws -> MessagesDeleted
    {
        try await write { connection, notes in
            let deleted = try MessageRules.seqsToDelete(
                seqs, readableUpTo: try await self.readableUpTo(connection, conversationId, for: userId))
            for seq in deleted {
                try await connection.rows(
                    """
                    INSERT INTO deleted_messages (user_id, conversation_id, seq) VALUES ($1, $2, $3)
                    ON CONFLICT DO NOTHING
                    """,
                    [.int(userId.rawValue), .int(conversationId.rawValue), .int(seq)], logger: self.logger)
            }
            // The summary's last message may now be a placeholder: the user's next sync resends it.
            try await connection.rows(
                "UPDATE members SET version = $1 WHERE conversation_id = $2 AND user_id = $3",
                [.int(try await self.nextVersion(connection)), .int(conversationId.rawValue), .int(userId.rawValue)],
                logger: self.logger)
            let payload = MessagesDeleted(conversationId: conversationId, seqs: deleted)
            try await self.announce(connection, notes, [Announcement(to: [userId], payload.body)], at: now)
            return payload
        }
    }

    public func markDelivered(_ conversationId: ConversationID, by userId: UserID, upTo seq: Int64) async throws
        -> ReadReceipt
    {
        try await write(shared: true) { connection, notes in
            // In a group the watermark only feeds the receipts list: no push, no resync.
            let watermark = try await self.moveWatermark(
                connection, "delivered_seq", of: userId, in: conversationId, to: seq
            ) { $0 == .direct }
            if watermark.moved && watermark.kind == .direct {
                notes.add(
                    ChangeNote(
                        membersVersion: watermark.membersVersion,
                        delivered: [conversationId.rawValue, userId.rawValue, watermark.seq]))
            }
            return ReadReceipt(conversationId: conversationId, userId: userId, seq: watermark.seq)
        }
    }

    public func receipts(of conversationId: ConversationID, for userId: UserID) async throws -> ReceiptList {
        try await read { connection in
            let receipts = try await connection.rows(
                "SELECT user_id, read_seq, delivered_seq FROM members WHERE conversation_id = $1 ORDER BY user_id",
                [.int(conversationId.rawValue)], logger: self.logger
            ).map {
                MemberReceipt(
                    userId: UserID(try $0.int("user_id")), readSeq: try $0.int("read_seq"),
                    deliveredSeq: max(try $0.int("delivered_seq"), try $0.int("read_seq")))
            }
            try ConversationRules.requireMember(userId, of: receipts.map(\.userId), in: conversationId)
            return ReceiptList(conversationId: conversationId, members: receipts)
        }
    }

    /// Message `id` if `userId` may read it, else `message_not_found`.
    private func readableMessage(_ connection: PostgresConnection, _ id: MessageID, by userId: UserID) async throws
        -> Message
    {
        guard let message = try await message(connection, id),
            let upTo = try? await readableUpTo(connection, message.conversationId, for: userId), message.seq <= upTo
        else { throw MessageRules.notFound(id) }
        return message
    }

    /// How far `userId` may read conversation `id` (its last seq for a member); throws as
    /// ``ConversationRules/readableUpTo(_:isMember:formerReadUpTo:exists:)`` does.
    func readableUpTo(_ connection: PostgresConnection, _ id: ConversationID, for userId: UserID)
        async throws -> Int64
    {
        let row = try await connection.rows(
            """
            SELECT EXISTS (SELECT 1 FROM members WHERE conversation_id = $1 AND user_id = $2) AS member,
                (SELECT read_up_to FROM former_members WHERE conversation_id = $1 AND user_id = $2) AS former,
                (SELECT max_seq FROM conversations WHERE id = $1) AS max_seq
            """,
            [.int(id.rawValue), .int(userId.rawValue)], logger: logger)[0]
        let maxSeq = try row.optionalInt("max_seq")
        let upTo = try ConversationRules.readableUpTo(
            id, isMember: try row.bool("member"), formerReadUpTo: try row.optionalInt("former"), exists: maxSeq != nil)
        return upTo ?? maxSeq ?? 0
    }
}
