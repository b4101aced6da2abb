import ParleyCore

/// Who may recall, edit, quote, forward, mention and delete what. Backends read the facts,
/// ask these rules and write what they decide, in one transaction.
public enum MessageRules {
    /// The message as it stands after `change` by `actorId`, or the error that refuses it.
    public static func decide(
        _ change: MessageChange, in state: MessageChangeState, by actorId: UserID, windows: MessageWindows,
        at now: Int64
    ) throws -> Message {
        let message = state.message
        guard let actor = state.actor else { throw ParleyError.notAMember(of: message.conversationId) }
        if state.dissolvedAt != nil { throw GroupRules.dissolved(message.conversationId) }
        guard message.kind != .system else {
            throw ParleyError(.forbidden, "System notices cannot be recalled or edited.")
        }
        guard !message.isRecalled else { throw recalled(message.id) }
        switch change {
        case .recall:
            try checkCanRecall(message, in: state, by: actor, window: windows.recallMs, at: now)
            return Message(
                id: message.id, conversationId: message.conversationId, seq: message.seq, senderId: message.senderId,
                clientMsgId: message.clientMsgId, kind: .recalled,
                content: .object(["recalledBy": .number(.integer(actorId.rawValue))]), sentAt: message.sentAt)
        case .edit(let text):
            guard message.senderId == actorId else {
                throw ParleyError(.notMessageSender, "Only the sender of a message may edit it.")
            }
            guard message.kind == .text || message.kind == .reply, case .object(var fields) = message.content else {
                throw ParleyError(.messageNotEditable, "Only texts and replies can be edited.")
            }
            try GroupRules.checkCanSend(
                role: actor.role, mutedUntil: actor.mutedUntil, muteAll: state.muteAll, dissolvedAt: nil,
                in: message.conversationId, at: now)
            guard now - message.sentAt <= windows.editMs else {
                throw ParleyError(
                    .editWindowPassed, "A message can be edited for \(windows.editMs / 1000) seconds after it was sent."
                )
            }
            fields["text"] = .string(text)
            var edited = message
            edited.content = .object(fields)
            _ = try MessageContent(kind: message.kind, content: edited.content)
            // Strictly after the form it replaces, whichever node's clock serves it: a device
            // keeps the latest form by this time.
            edited.editedAt = max(now, (message.editedAt ?? message.sentAt) + 1)
            return edited
        }
    }

    /// The sender within the recall window; in a group, the owner any message at any time and
    /// an admin their own and plain members' messages at any time.
    private static func checkCanRecall(
        _ message: Message, in state: MessageChangeState, by actor: Member, window: Int64, at now: Int64
    ) throws {
        if actor.userId == message.senderId {
            guard state.conversationKind == .group && actor.role != .member || now - message.sentAt <= window else {
                throw ParleyError(
                    .recallWindowPassed, "A message can be recalled for \(window / 1000) seconds after it was sent.")
            }
            return
        }
        let outranksSender =
            state.conversationKind == .group
            && (actor.role == .owner || (actor.role == .admin && (state.senderRole ?? .member) == .member))
        guard outranksSender else {
            throw ParleyError(
                .notMessageSender,
                "Only the sender may recall this message (group owners and admins may recall members' messages).")
        }
    }

    /// The quote of `target` for a reply in `conversationId`; nil `target` is one that does
    /// not exist, and one the sender may not read (`readable` false) does not exist for them.
    public static func quote(
        of target: Message?, readable: Bool, replyingIn conversationId: ConversationID, id: MessageID
    ) throws -> MessageQuote {
        guard let target, readable else { throw notFound(id) }
        guard target.conversationId == conversationId else {
            throw ParleyError(
                .replyOutsideConversation, "Message \(id) is in another conversation: a reply quotes its own.")
        }
        guard !target.isRecalled else { throw recalled(id) }
        guard !MessageKind.serverOnly.contains(target.kind) else {
            throw ParleyError(.messageInvalid, "A reply cannot quote a system notice.")
        }
        return MessageQuote(of: target)
    }

    /// The kind and content a forwarded copy of `source` carries: the same, except that a reply
    /// becomes a text and mentions are dropped.
    public static func forwardedCopy(of source: Message) throws -> (kind: MessageKind, content: JSONValue) {
        guard !source.isRecalled else { throw recalled(source.id) }
        guard !MessageKind.serverOnly.contains(source.kind) else {
            throw ParleyError(.messageNotForwardable, "System notices cannot be forwarded.")
        }
        switch source.typedContent {
        case .text(let text, _), .reply(let text, _, _):
            return (.text, .object(["text": .string(text)]))
        default:
            return (source.kind, source.content)
        }
    }

    /// Who a message's mentions count for: each mentioned member other than the sender, and
    /// ``everyone`` for `@all`, which only a group's owner and admins may use, unless the
    /// group lets every member.
    public static func mentioned(
        _ mentions: Mentions, by senderId: UserID, role: MemberRole, in kind: ConversationKind,
        everyoneMayMentionAll: Bool, members: [UserID]
    ) throws -> [UserID] {
        guard !mentions.isEmpty else { return [] }
        if mentions.all {
            guard kind == .group, role != .member || everyoneMayMentionAll else {
                throw ParleyError(.mentionAllNotAllowed, "Only the group's owner and admins may mention everyone.")
            }
        }
        let memberSet = Set(members)
        var counted = mentions.userIds.filter { $0 != senderId && memberSet.contains($0) }
        if mentions.all { counted.append(everyone) }
        return counted
    }

    /// The user id a mention of everyone is stored under.
    public static let everyone = UserID(0)

    /// Checks the seqs of a delete-for-me: 1 to ``Limits/maxDeleteBatch`` of them, each one
    /// the user may read (up to `readableUpTo`); answers them distinct and sorted.
    public static func seqsToDelete(_ seqs: [Int64], readableUpTo: Int64) throws -> [Int64] {
        guard (1...Limits.maxDeleteBatch).contains(seqs.count) else {
            throw ParleyError(.invalidField, "'seqs' must hold 1 to \(Limits.maxDeleteBatch) seqs.")
        }
        if let bad = seqs.first(where: { $0 < 1 || $0 > readableUpTo }) {
            throw ParleyError(.invalidField, "Seq \(bad) is not a message of this conversation you can read.")
        }
        return Array(Set(seqs)).sorted()
    }

    /// What `viewer` sees of a stored message: nothing at or below their cleared seq, a
    /// `deleted` placeholder for one they deleted, else the message.
    public static func seen(_ message: Message, deletedForViewer: Bool, clearedUpTo: Int64?) -> Message? {
        if let clearedUpTo, message.seq <= clearedUpTo { return nil }
        guard deletedForViewer else { return message }
        return Message(
            id: message.id, conversationId: message.conversationId, seq: message.seq, senderId: message.senderId,
            clientMsgId: message.clientMsgId, kind: .deleted, content: .object([:]), sentAt: message.sentAt)
    }

    /// An earlier `message.updated` event of a message that is now recalled, carrying the
    /// recalled form instead of the text it had then (the event log keeps no recalled text).
    public static func redacted(_ event: UserEvent, recalled: Message) -> UserEvent {
        guard case .messageUpdated(let update) = event.body, update.message.id == recalled.id else { return event }
        return UserEvent(
            seq: event.seq, at: event.at, MessageUpdated(message: recalled, updatedBy: update.updatedBy).body)
    }

    /// Whether a member still sees seq `seq`: not deleted for themselves, not cleared.
    public static func stillSees(_ seq: Int64, deleted: Bool, clearedUpTo: Int64?) -> Bool {
        !deleted && seq > (clearedUpTo ?? 0)
    }

    public static func notFound(_ id: MessageID) -> ParleyError {
        ParleyError(.messageNotFound, "Message \(id) does not exist or you cannot read it.")
    }

    static func recalled(_ id: MessageID) -> ParleyError {
        ParleyError(.messageRecalled, "Message \(id) was recalled.")
    }
}
