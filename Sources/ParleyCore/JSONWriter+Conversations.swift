extension SyncResponse: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        writer.raw(#"{"conversations":"#)
        try writer.array(conversations) { try $0.conversationSummary($1) }
        writer.raw(#","events":"#)
        try writer.array(events) { $0.json(try JSONText.encode($1)) }
        writer.raw(#","cursor":"#)
        writer.string(cursor)
        writer.raw(#","hasMore":"#)
        writer.bool(hasMore)
        writer.raw("}")
    }
}

extension ConversationPage: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        writer.raw(#"{"conversations":"#)
        try writer.array(conversations) { try $0.conversationSummary($1) }
        writer.nextCursor(nextCursor)
        writer.raw("}")
    }
}

extension ConversationDetail: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        writer.raw(#"{"conversation":"#)
        try writer.conversationSummary(conversation)
        writer.raw(#","members":"#)
        writer.array(members) { $0.member($1) }
        writer.raw("}")
    }
}

extension ReadReceipt: JSONWritable {
    public func write(to writer: inout JSONWriter) throws {
        writer.raw(#"{"conversationId":"#)
        writer.integer(conversationId.rawValue)
        writer.raw(#","userId":"#)
        writer.integer(userId.rawValue)
        writer.raw(#","seq":"#)
        writer.integer(seq)
        writer.raw("}")
    }
}

extension JSONWriter {
    /// A ``ConversationSummary`` with the keys its `Codable` conformance uses (absent
    /// optionals left out).
    public mutating func conversationSummary(_ summary: ConversationSummary) throws {
        raw(#"{"id":"#)
        integer(summary.id.rawValue)
        raw(#","kind":"#)
        string(summary.kind.rawValue)
        if let name = summary.name {
            raw(#","name":"#)
            string(name)
        }
        if let peer = summary.peerId {
            raw(#","peerId":"#)
            integer(peer.rawValue)
        }
        raw(#","memberCount":"#)
        integer(Int64(summary.memberCount))
        raw(#","maxSeq":"#)
        integer(summary.maxSeq)
        raw(#","readSeq":"#)
        integer(summary.readSeq)
        raw(#","unreadCount":"#)
        integer(summary.unreadCount)
        raw(#","othersReadSeq":"#)
        integer(summary.othersReadSeq)
        raw(#","othersDeliveredSeq":"#)
        integer(summary.othersDeliveredSeq)
        raw(#","unreadMentions":"#)
        integer(Int64(summary.unreadMentions))
        if let last = summary.lastMessage {
            raw(#","lastMessage":"#)
            try message(last)
        }
        raw(#","createdAt":"#)
        integer(summary.createdAt)
        raw(#","lastActivityAt":"#)
        integer(summary.lastActivityAt)
        if let group = summary.group {
            raw(#","group":"#)
            groupProfile(group)
        }
        raw(#","settings":"#)
        conversationSettings(summary.settings)
        raw("}")
    }

    /// A ``GroupProfile`` with the keys its `Codable` conformance uses.
    public mutating func groupProfile(_ group: GroupProfile) {
        raw(#"{"name":"#)
        string(group.name)
        raw(#","description":"#)
        string(group.description)
        if let avatar = group.avatar {
            raw(#","avatar":"#)
            string(avatar)
        }
        if let announcement = group.announcement {
            raw(#","announcement":{"text":"#)
            string(announcement.text)
            raw(#","updatedBy":"#)
            integer(announcement.updatedBy.rawValue)
            raw(#","updatedAt":"#)
            integer(announcement.updatedAt)
            raw("}")
        }
        raw(#","joinPolicy":"#)
        string(group.joinPolicy.rawValue)
        raw(#","muteAll":"#)
        bool(group.muteAll)
        raw(#","memberLimit":"#)
        integer(Int64(group.memberLimit))
        raw(#","ownerId":"#)
        integer(group.ownerId.rawValue)
        if let dissolvedAt = group.dissolvedAt {
            raw(#","dissolvedAt":"#)
            integer(dissolvedAt)
        }
        raw(#","everyoneMayMentionAll":"#)
        bool(group.everyoneMayMentionAll)
        raw("}")
    }

    /// ``ConversationSettings`` with the keys its `Codable` conformance uses.
    public mutating func conversationSettings(_ settings: ConversationSettings) {
        raw("{")
        if let pinnedAt = settings.pinnedAt {
            raw(#""pinnedAt":"#)
            integer(pinnedAt)
            raw(",")
        }
        raw(#""muted":"#)
        bool(settings.muted)
        if let hidden = settings.hiddenUpToSeq {
            raw(#","hiddenUpToSeq":"#)
            integer(hidden)
        }
        raw(#","draft":"#)
        string(settings.draft)
        if let savedAt = settings.draftSavedAt {
            raw(#","draftSavedAt":"#)
            integer(savedAt)
        }
        if let cleared = settings.clearedUpToSeq {
            raw(#","clearedUpToSeq":"#)
            integer(cleared)
        }
        raw("}")
    }

    /// A ``Member`` with the keys its `Codable` conformance uses.
    public mutating func member(_ member: Member) {
        raw(#"{"userId":"#)
        integer(member.userId.rawValue)
        raw(#","role":"#)
        string(member.role.rawValue)
        raw(#","readSeq":"#)
        integer(member.readSeq)
        raw(#","joinedAt":"#)
        integer(member.joinedAt)
        if let nickname = member.nickname {
            raw(#","nickname":"#)
            string(nickname)
        }
        if let mutedUntil = member.mutedUntil {
            raw(#","mutedUntil":"#)
            integer(mutedUntil)
        }
        raw("}")
    }
}
