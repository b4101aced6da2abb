import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension UserRecord {
    init(row: Row) {
        self.init(
            id: UserID(row["id"]), username: row["username"], email: row["email"], phone: row["phone"],
            passwordHash: row["password_hash"], nickname: row["nickname"], signature: row["signature"],
            avatar: row["avatar"], gender: (row["gender"] as String?).map(Gender.init(rawValue:)),
            birthday: row["birthday"], region: row["region"],
            privacy: PrivacySettings(
                findByUsername: Discoverability(rawValue: row["find_by_username"]),
                findByEmail: Discoverability(rawValue: row["find_by_email"]),
                findByPhone: Discoverability(rawValue: row["find_by_phone"]),
                findByNickname: Discoverability(rawValue: row["find_by_nickname"]),
                addMe: AddPolicy(rawValue: row["add_me"]), messageFrom: MessagePolicy(rawValue: row["message_from"]),
                presence: PresenceVisibility(rawValue: row["presence"])),
            createdAt: row["created_at"], emailVerifiedAt: row["email_verified_at"],
            phoneVerifiedAt: row["phone_verified_at"], deletedAt: row["deleted_at"])
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
            content: try JSONText.decodeValue(from: row[prefix + "content"]),
            sentAt: row[prefix + "sent_at"],
            quote: try (row[prefix + "quote"] as String?).map { try JSONText.decode(MessageQuote.self, from: $0) },
            forwarded: (row[prefix + "forwarded"] as Bool? ?? false) ? true : nil, editedAt: row[prefix + "edited_at"])
    }
}

extension Member {
    init(row: Row) {
        self.init(
            userId: UserID(row["user_id"]), role: MemberRole(rawValue: row["role"]) ?? .member,
            readSeq: row["read_seq"], joinedAt: row["joined_at"], nickname: row["nickname"],
            mutedUntil: row["muted_until"])
    }
}

extension ConversationSettings {
    /// Decodes a member's settings columns.
    init(row: Row) {
        self.init(
            pinnedAt: row["pinned_at"], muted: row["muted"], hiddenUpToSeq: row["hidden_seq"], draft: row["draft"],
            draftSavedAt: row["draft_at"], clearedUpToSeq: row["cleared_seq"])
    }
}

extension GroupProfile {
    /// Decodes the profile columns of a `conversations` row; nil for a direct conversation.
    init?(row: Row) {
        guard row["kind"] == ConversationKind.group.rawValue else { return nil }
        let announcement: GroupAnnouncement? = (row["announcement"] as String?).map {
            GroupAnnouncement(
                text: $0, updatedBy: UserID(row["announcement_by"] ?? 0), updatedAt: row["announcement_at"] ?? 0)
        }
        self.init(
            name: row["name"] ?? "", description: row["description"], avatar: row["avatar"],
            announcement: announcement, joinPolicy: JoinPolicy(rawValue: row["join_policy"]) ?? .inviteOnly,
            muteAll: row["mute_all"], memberLimit: row["member_limit"], ownerId: UserID(row["owner_id"] ?? 0),
            dissolvedAt: row["dissolved_at"], everyoneMayMentionAll: row["everyone_may_mention_all"])
    }
}

extension InviteLink {
    init(row: Row) {
        self.init(
            code: row["code"], conversationId: ConversationID(row["conversation_id"]),
            createdBy: UserID(row["created_by"]), createdAt: row["created_at"], expiresAt: row["expires_at"],
            maxUses: row["max_uses"], uses: row["uses"], revokedAt: row["revoked_at"])
    }
}

extension JoinRequest {
    init(row: Row) {
        self.init(
            conversationId: ConversationID(row["conversation_id"]), userId: UserID(row["user_id"]),
            inviteCode: row["invite_code"], message: row["message"],
            state: JoinRequestState(rawValue: row["state"]) ?? .rejected, createdAt: row["created_at"],
            resolvedBy: (row["resolved_by"] as Int64?).map { UserID($0) }, resolvedAt: row["resolved_at"])
    }
}

extension ConversationSummary {
    /// Decodes a row of the summary query: conversation columns, the viewer's `read_seq`, and
    /// the last message as `lm_*` columns.
    init(row: Row, viewer: UserID) throws {
        let id = ConversationID(row["id"])
        let kind = ConversationKind(rawValue: row["kind"]) ?? .group
        let peer = (row["direct_key"] as String?).flatMap { DirectKey.peer(in: $0, of: viewer) }
        let settings = ConversationSettings(row: row)
        let lastMessage: Message? =
            row["lm_id"] as Int64? == nil
            ? nil
            : MessageRules.seen(
                try Message(row: row, prefix: "lm_", conversationId: id), deletedForViewer: row["lm_deleted"],
                clearedUpTo: settings.clearedUpToSeq)
        self.init(
            id: id, kind: kind, name: row["name"], peerId: peer, memberCount: row["member_count"],
            maxSeq: row["max_seq"], readSeq: row["read_seq"], othersReadSeq: row["others_read_seq"],
            othersDeliveredSeq: row["others_delivered_seq"], unreadMentions: row["unread_mentions"],
            lastMessage: lastMessage,
            createdAt: row["created_at"],
            lastActivityAt: row["last_activity_at"], group: GroupProfile(row: row),
            settings: settings)
    }
}
