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

/// A statement locates the columns of all its rows at once (``Row/decodeAll(_:sql:arguments:layout:_:)``).
extension Statement: ColumnLocator {}

extension Row: ColumnLocator {
    /// Ignores case, as `Statement`'s does (and as GRDB's own scan of a copied row does).
    package func index(ofColumn name: String) -> Int? {
        let lowercased = name.lowercased()
        for (index, column) in columnNames.enumerated() where column == name || column.lowercased() == lowercased {
            return index
        }
        return nil
    }
}

extension Message {
    /// Decodes a `messages` row.
    init(row: Row) throws { try self.init(row: row, layout: Layout(row)) }

    /// Decodes a `messages` row whose columns are at `layout`; `conversationId`, when given,
    /// stands for the row's.
    init(row: Row, layout: Layout, conversationId: ConversationID? = nil) throws {
        guard let conversationId = conversationId ?? layout.conversationId.map({ ConversationID(row[$0]) }) else {
            preconditionFailure("A message decoded without its conversation.")
        }
        self.init(
            id: MessageID(row[layout.id]), conversationId: conversationId, seq: row[layout.seq],
            senderId: UserID(row[layout.senderId]), clientMsgId: row[layout.clientMsgId],
            kind: MessageKind(rawValue: row[layout.kind]),
            content: try JSONText.decodeValue(from: row[layout.content]), sentAt: row[layout.sentAt],
            quote: try (row[layout.quote] as String?).map { try JSONText.decode(MessageQuote.self, from: $0) },
            forwarded: (row[layout.forwarded] as Bool? ?? false) ? true : nil, editedAt: row[layout.editedAt])
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
    init(row: Row, layout: Layout? = nil) {
        let layout = layout ?? Layout(row)
        self.init(
            pinnedAt: row[layout.pinnedAt], muted: row[layout.muted], hiddenUpToSeq: row[layout.hiddenSeq],
            draft: row[layout.draft], draftSavedAt: row[layout.draftAt], clearedUpToSeq: row[layout.clearedSeq])
    }
}

extension GroupProfile {
    /// Decodes the profile columns of a `conversations` row; nil for a direct conversation.
    init?(row: Row, layout: Layout? = nil) {
        let layout = layout ?? Layout(row)
        guard row[layout.kind] == ConversationKind.group.rawValue else { return nil }
        let announcement: GroupAnnouncement? = (row[layout.announcement] as String?).map {
            GroupAnnouncement(
                text: $0, updatedBy: UserID(row[layout.announcementBy] ?? 0),
                updatedAt: row[layout.announcementAt] ?? 0)
        }
        self.init(
            name: row[layout.name] ?? "", description: row[layout.description], avatar: row[layout.avatar],
            announcement: announcement,
            joinPolicy: JoinPolicy(rawValue: row[layout.joinPolicy]) ?? .inviteOnly, muteAll: row[layout.muteAll],
            memberLimit: row[layout.memberLimit], ownerId: UserID(row[layout.ownerId] ?? 0),
            dissolvedAt: row[layout.dissolvedAt], everyoneMayMentionAll: row[layout.everyoneMayMentionAll])
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
    /// Decodes a row of the summary query, whose columns are at `layout`: conversation
    /// columns, the viewer's `read_seq`, and the last message as `lm_*` columns.
    init(row: Row, layout: Layout, viewer: UserID) throws {
        let id = ConversationID(row[layout.id])
        let kind = ConversationKind(rawValue: row[layout.kind]) ?? .group
        let peer = (row[layout.directKey] as String?).flatMap { DirectKey.peer(in: $0, of: viewer) }
        let settings = ConversationSettings(row: row, layout: layout.settings)
        let lastMessage: Message? =
            row[layout.lastMessageId] as Int64? == nil
            ? nil
            : MessageRules.seen(
                try Message(row: row, layout: layout.lastMessage, conversationId: id),
                deletedForViewer: row[layout.lastMessageDeleted], clearedUpTo: settings.clearedUpToSeq)
        self.init(
            id: id, kind: kind, name: row[layout.name], peerId: peer, memberCount: row[layout.memberCount],
            maxSeq: row[layout.maxSeq], readSeq: row[layout.readSeq], othersReadSeq: row[layout.othersReadSeq],
            othersDeliveredSeq: row[layout.othersDeliveredSeq], unreadMentions: row[layout.unreadMentions],
            lastMessage: lastMessage, createdAt: row[layout.createdAt],
            lastActivityAt: row[layout.lastActivityAt], group: GroupProfile(row: row, layout: layout.group),
            settings: settings)
    }
}
