import ParleyCore

/// What can say where a named column of a query's rows is, so that decoders find their columns
/// once per query rather than once per row and column (looking columns up by name was 7 % of a
/// sync page's CPU on SQLite, and 8 % on PostgreSQL). Each backend says what locates: SQLite's
/// statement or a lone row, PostgreSQL's first row of a result. The layouts below are the
/// backends' shared column names; each backend decodes by them.
package protocol ColumnLocator {
    /// The index of the first column named `name`, if any.
    func index(ofColumn name: String) -> Int?
}

extension ColumnLocator {
    /// The index of column `name`, which the query must have.
    package func column(_ name: String) -> Int {
        guard let index = index(ofColumn: name) else { preconditionFailure("The query has no column \(name).") }
        return index
    }
}

extension Message {
    /// Where a `messages` row's columns are; `prefix` selects aliased columns of a joined last
    /// message. `conversationId` is nil where the statement does not select it.
    package struct Layout {
        package let id, seq, senderId, clientMsgId, kind, content, sentAt, quote, forwarded, editedAt: Int
        package let conversationId: Int?

        package init(_ locator: some ColumnLocator, prefix: String = "") {
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
}

extension ConversationSettings {
    /// Where a member's settings columns are.
    package struct Layout {
        package let pinnedAt, muted, hiddenSeq, draft, draftAt, clearedSeq: Int

        package init(_ locator: some ColumnLocator) {
            pinnedAt = locator.column("pinned_at")
            muted = locator.column("muted")
            hiddenSeq = locator.column("hidden_seq")
            draft = locator.column("draft")
            draftAt = locator.column("draft_at")
            clearedSeq = locator.column("cleared_seq")
        }
    }
}

extension GroupProfile {
    /// Where the profile columns of a `conversations` row are.
    package struct Layout {
        package let kind, name, description, avatar, announcement, announcementBy, announcementAt, joinPolicy, muteAll,
            memberLimit, ownerId, dissolvedAt, everyoneMayMentionAll: Int

        package init(_ locator: some ColumnLocator) {
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
}

extension ConversationSummary {
    /// Where the columns of the summary query are (`summaryRows` of either backend).
    package struct Layout {
        package let id, kind, directKey, name, memberCount, maxSeq, readSeq, othersReadSeq, othersDeliveredSeq,
            unreadMentions, createdAt, lastActivityAt, lastMessageId, lastMessageDeleted, changeVersion: Int
        package let settings: ConversationSettings.Layout
        package let group: GroupProfile.Layout
        package let lastMessage: Message.Layout

        package init(_ locator: some ColumnLocator) {
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
}
