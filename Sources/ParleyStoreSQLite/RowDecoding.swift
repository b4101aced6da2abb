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

/// What can say where a named column of a query's rows is: its statement, for all of them at
/// once (``Row/decodeAll(_:sql:arguments:layout:_:)``), or a lone row. Decoders find their
/// columns once per statement rather than once per row and column: looking columns up by name
/// was 7 % of a sync page's CPU.
protocol ColumnLocator {
    /// The index of the first column named `name`, if any.
    func index(ofColumn name: String) -> Int?
}

extension ColumnLocator {
    /// The index of column `name`, which the query must have.
    func column(_ name: String) -> Int {
        guard let index = index(ofColumn: name) else { preconditionFailure("The query has no column \(name).") }
        return index
    }
}

extension Statement: ColumnLocator {}

extension Row: ColumnLocator {
    /// Ignores case, as `Statement`'s does (and as GRDB's own scan of a copied row does).
    func index(ofColumn name: String) -> Int? {
        let lowercased = name.lowercased()
        for (index, column) in columnNames.enumerated() where column == name || column.lowercased() == lowercased {
            return index
        }
        return nil
    }
}

extension Message {
    /// Where a `messages` row's columns are; `prefix` selects aliased columns of a joined last
    /// message. `conversationId` is nil where the statement does not select it.
    struct Layout {
        let id, seq, senderId, clientMsgId, kind, content, sentAt, quote, forwarded, editedAt: Int
        let conversationId: Int?

        init(_ locator: some ColumnLocator, prefix: String = "") {
            id = locator.column(prefix + "id")
            seq = locator.column(prefix + "seq")
            senderId = locator.column(prefix + "sender_id")
            clientMsgId = locator.column(prefix + "client_msg_id")
            kind = locator.column(prefix + "kind")
            content = locator.column(prefix + "content")
            sentAt = locator.column(prefix + "sent_at")
            quote = locator.column(prefix + "quote")
            forwarded = locator.column(prefix + "forwarded")
            editedAt = locator.column(prefix + "edited_at")
            conversationId = locator.index(ofColumn: "conversation_id")
        }
    }

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
    /// Where a member's settings columns are.
    struct Layout {
        let pinnedAt, muted, hiddenSeq, draft, draftAt, clearedSeq: Int

        init(_ locator: some ColumnLocator) {
            pinnedAt = locator.column("pinned_at")
            muted = locator.column("muted")
            hiddenSeq = locator.column("hidden_seq")
            draft = locator.column("draft")
            draftAt = locator.column("draft_at")
            clearedSeq = locator.column("cleared_seq")
        }
    }

    /// Decodes a member's settings columns.
    init(row: Row, layout: Layout? = nil) {
        let layout = layout ?? Layout(row)
        self.init(
            pinnedAt: row[layout.pinnedAt], muted: row[layout.muted], hiddenUpToSeq: row[layout.hiddenSeq],
            draft: row[layout.draft], draftSavedAt: row[layout.draftAt], clearedUpToSeq: row[layout.clearedSeq])
    }
}

extension GroupProfile {
    /// Where the profile columns of a `conversations` row are.
    struct Layout {
        let kind, name, description, avatar, announcement, announcementBy, announcementAt, joinPolicy, muteAll,
            memberLimit, ownerId, dissolvedAt, everyoneMayMentionAll: Int

        init(_ locator: some ColumnLocator) {
            kind = locator.column("kind")
            name = locator.column("name")
            description = locator.column("description")
            avatar = locator.column("avatar")
            announcement = locator.column("announcement")
            announcementBy = locator.column("announcement_by")
            announcementAt = locator.column("announcement_at")
            joinPolicy = locator.column("join_policy")
            muteAll = locator.column("mute_all")
            memberLimit = locator.column("member_limit")
            ownerId = locator.column("owner_id")
            dissolvedAt = locator.column("dissolved_at")
            everyoneMayMentionAll = locator.column("everyone_may_mention_all")
        }
    }

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
    /// Where the columns of the summary query are
    /// (``SQLiteStore/summaryRows(_:for:where:orderBy:limit:arguments:_:)``).
    struct Layout {
        let id, kind, directKey, name, memberCount, maxSeq, readSeq, othersReadSeq, othersDeliveredSeq,
            unreadMentions, createdAt, lastActivityAt, lastMessageId, lastMessageDeleted, changeVersion: Int
        let settings: ConversationSettings.Layout
        let group: GroupProfile.Layout
        let lastMessage: Message.Layout

        init(_ locator: some ColumnLocator) {
            id = locator.column("id")
            kind = locator.column("kind")
            directKey = locator.column("direct_key")
            name = locator.column("name")
            memberCount = locator.column("member_count")
            maxSeq = locator.column("max_seq")
            readSeq = locator.column("read_seq")
            othersReadSeq = locator.column("others_read_seq")
            othersDeliveredSeq = locator.column("others_delivered_seq")
            unreadMentions = locator.column("unread_mentions")
            createdAt = locator.column("created_at")
            lastActivityAt = locator.column("last_activity_at")
            lastMessageId = locator.column("lm_id")
            lastMessageDeleted = locator.column("lm_deleted")
            changeVersion = locator.column("change_version")
            settings = ConversationSettings.Layout(locator)
            group = GroupProfile.Layout(locator)
            lastMessage = Message.Layout(locator, prefix: "lm_")
        }
    }

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
