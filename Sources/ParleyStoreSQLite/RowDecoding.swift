import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension UserRecord {
    init(row: Row) {
        self.init(
            id: UserID(row["id"]), username: row["username"], email: row["email"], phone: row["phone"],
            passwordHash: row["password_hash"], nickname: row["nickname"], signature: row["signature"],
            createdAt: row["created_at"])
    }
}

extension SessionRecord {
    init(row: Row) {
        self.init(
            id: SessionID(row["id"]), userId: UserID(row["user_id"]), device: row["device"], ip: row["ip"],
            createdAt: row["created_at"], lastUsedAt: row["last_used_at"], revokedAt: row["revoked_at"],
            accessExpiresAt: row["access_expires_at"], refreshExpiresAt: row["refresh_expires_at"])
    }
}

extension Message {
    /// Decodes a `messages` row; `prefix` selects aliased columns of a joined last message.
    init(row: Row, prefix: String = "", conversationId: ConversationID? = nil) throws {
        self.init(
            id: MessageID(row[prefix + "id"]),
            conversationId: conversationId ?? ConversationID(row["conversation_id"]),
            seq: row[prefix + "seq"], senderId: UserID(row[prefix + "sender_id"]),
            clientMsgId: row[prefix + "client_msg_id"], kind: MessageKind(rawValue: row[prefix + "kind"]),
            content: try JSONText.decode(JSONValue.self, from: row[prefix + "content"]),
            sentAt: row[prefix + "sent_at"])
    }
}

extension Member {
    init(row: Row) {
        self.init(
            userId: UserID(row["user_id"]), role: MemberRole(rawValue: row["role"]) ?? .member,
            readSeq: row["read_seq"], joinedAt: row["joined_at"])
    }
}

extension ConversationSummary {
    /// Decodes a row of the summary query: conversation columns, the viewer's `read_seq`, and
    /// the last message as `lm_*` columns.
    init(row: Row, viewer: UserID) throws {
        let id = ConversationID(row["id"])
        let kind = ConversationKind(rawValue: row["kind"]) ?? .group
        let peer = (row["direct_key"] as String?).flatMap { DirectKey.peer(in: $0, of: viewer) }
        let lastMessage: Message? =
            row["lm_id"] as Int64? == nil ? nil : try Message(row: row, prefix: "lm_", conversationId: id)
        self.init(
            id: id, kind: kind, name: row["name"], peerId: peer, memberCount: row["member_count"],
            maxSeq: row["max_seq"], readSeq: row["read_seq"], othersReadSeq: row["others_read_seq"],
            lastMessage: lastMessage,
            createdAt: row["created_at"],
            lastActivityAt: row["last_activity_at"])
    }
}
