import GRDB
import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyKit

/// Recalls, edits, replies, deletes for the user and cleared history in the local store: a
/// message is replaced only by a newer form, whatever order the forms arrive in.
extension ClientStoreTests {
    static let me = UserID(1)
    static let peer = UserID(2)
    static let chat = ConversationID(4)

    /// A store signed in as ``me`` holding the conversation ``chat``.
    func signedInStore(maxSeq: Int64 = 0, readSeq: Int64 = 0, settings: ConversationSettings = .init()) throws
        -> ClientStore
    {
        let store = try ClientStore(path: nil)
        let session = StoredSession(
            userId: Self.me.rawValue, username: "me", sessionId: 1, accessToken: "a", accessTokenExpiresAt: 0,
            refreshToken: "r")
        try store.setValue(try JSONText.encode(session), for: ClientStore.sessionKey)
        try store.saveConversation(
            ConversationSummary(
                id: Self.chat, kind: .group, name: "g", peerId: nil, memberCount: 3, maxSeq: maxSeq, readSeq: readSeq,
                lastMessage: nil, createdAt: 0, lastActivityAt: 0, settings: settings))
        return store
    }

    func text(_ seq: Int64, from sender: UserID = peer, _ body: String? = nil, mentions: Mentions = .none) -> Message {
        Message(
            id: MessageID(100 + seq), conversationId: Self.chat, seq: seq, senderId: sender, clientMsgId: "c\(seq)",
            kind: .text, content: OutgoingContent.text(body ?? "m\(seq)", mentions: mentions), sentAt: 1_000 + seq)
    }

    func recalled(_ message: Message, by: UserID? = nil) -> Message {
        var recalled = message
        recalled.kind = .recalled
        recalled.content = ["recalledBy": .number(.integer((by ?? message.senderId).rawValue))]
        recalled.quote = nil
        recalled.editedAt = nil
        return recalled
    }

    func edited(_ message: Message, _ text: String, at time: Int64) -> Message {
        var edited = message
        edited.content = ["text": .string(text)]
        edited.editedAt = time
        return edited
    }

    func updatedEvent(_ seq: Int64, _ message: Message) -> UserEvent {
        UserEvent(seq: seq, at: 500 + seq, MessageUpdated(message: message, updatedBy: message.senderId).body)
    }

    @Test func aRecallWinsWhicheverOrderTheRecallAndTheOriginalArriveIn() throws {
        let original = text(1)
        let first = try signedInStore()
        try first.saveMessages([original])
        let changes = try first.applyEvent(updatedEvent(1, recalled(original)))
        #expect(changes.updated == [recalled(original)], "shown views replace it")
        #expect(try first.allMessages(in: Self.chat) == [recalled(original)])

        let second = try signedInStore()
        let early = try second.applyEvent(updatedEvent(1, recalled(original)))
        #expect(early.inserted == [recalled(original)], "stored in its recalled form")
        let late = try second.saveMessages([original])
        #expect(late == StoreChanges(), "the original, pushed or paged before the recall, changes nothing")
        #expect(try second.allMessages(in: Self.chat) == [recalled(original)])
        #expect(try second.conversation(Self.chat)?.lastMessage == recalled(original))
        #expect(try second.conversationsWithHoles().isEmpty, "the seq is held")
    }

    @Test func aDeviceOfflineThroughTheMessageAndItsRecallEndsWithTheRecalledFormOnly() throws {
        let original = text(1)
        let store = try signedInStore()
        let summary = ConversationSummary(
            id: Self.chat, kind: .group, name: "g", peerId: nil, memberCount: 3, maxSeq: 1, readSeq: 0,
            lastMessage: recalled(original), createdAt: 0, lastActivityAt: 1_001)
        let changes = try store.applySync(
            SyncResponse(
                conversations: [summary], events: [updatedEvent(3, recalled(original))], cursor: "c1", hasMore: false))
        #expect(changes.inserted == [recalled(original)], "once")
        #expect(changes.updated.isEmpty)
        try store.saveMessages([original])
        #expect(try store.allMessages(in: Self.chat) == [recalled(original)])
    }

    @Test func theNewestEditWinsAndARecallIsNeverUndone() throws {
        let original = text(1, from: Self.me, "draft")
        let store = try signedInStore()
        try store.saveMessages([original])
        try store.applyEvent(updatedEvent(2, edited(original, "second", at: 3_000)))
        try store.applyEvent(updatedEvent(1, edited(original, "first", at: 2_000)))
        try store.saveMessages([original])
        #expect(try store.allMessages(in: Self.chat) == [edited(original, "second", at: 3_000)])

        try store.applyEvent(updatedEvent(3, recalled(original)))
        try store.applyEvent(updatedEvent(4, edited(original, "third", at: 4_000)))
        try store.saveMessages([edited(original, "second", at: 3_000)])
        #expect(try store.allMessages(in: Self.chat) == [recalled(original)])
        #expect(try store.recalledText(in: Self.chat, seq: 1) == "second", "the user's own text, kept to re-edit")
    }

    @Test func onlyTheUsersOwnRecalledTextIsKept() throws {
        let store = try signedInStore()
        let theirs = text(1, "secret")
        try store.saveMessages([theirs])
        try store.applyEvent(updatedEvent(1, recalled(theirs)))
        #expect(try store.recalledText(in: Self.chat, seq: 1) == nil)
        let mine = text(2, from: Self.me, "oops")
        try store.saveMessages([mine])
        try store.applyEvent(updatedEvent(2, recalled(mine, by: UserID(3))))
        #expect(try store.recalledText(in: Self.chat, seq: 2) == "oops", "recalled by an admin, still the user's")
    }

    @Test func repliesHeldFollowTheMessageTheyQuote() throws {
        let store = try signedInStore()
        let target = text(1, "original words")
        var reply = text(2, from: Self.me, "agreed")
        reply.kind = .reply
        reply.content = OutgoingContent.reply("agreed", to: target.id)
        reply.quote = MessageQuote(of: target)
        try store.saveMessages([target, reply])

        let edit = edited(target, "better words", at: 5_000)
        let changes = try store.applyEvent(updatedEvent(1, edit))
        var requoted = reply
        requoted.quote = MessageQuote(of: edit)
        #expect(changes.updated == [edit, requoted])
        try store.applyEvent(updatedEvent(2, recalled(target)))
        let quote = try #require(try store.message(in: Self.chat, seq: 2)?.quote)
        #expect(quote.kind == .recalled)
        #expect(quote.text == nil)

        // A reply whose push was on its way while its target was recalled.
        var late = text(3, "me too")
        late.kind = .reply
        late.content = OutgoingContent.reply("me too", to: target.id)
        late.quote = MessageQuote(of: target)
        try store.saveMessages([late])
        #expect(try store.message(in: Self.chat, seq: 3)?.quote?.kind == .recalled)
    }

    @Test func messagesDeletedForTheUserAreHiddenEvenWhenTheyArriveLater() throws {
        let store = try signedInStore()
        try store.saveMessages([text(1), text(2)])
        let changes = try store.applyEvent(
            UserEvent(seq: 1, at: 0, MessagesDeleted(conversationId: Self.chat, seqs: [2, 3]).body))
        #expect(changes.hidden == [Self.chat: [2]], "only what was shown")
        try store.saveMessages([text(3), text(4)])
        #expect(try store.allMessages(in: Self.chat).map(\.seq) == [1, 4], "3 came after its deletion")
        #expect(try store.conversationsWithHoles().isEmpty)

        var placeholder = text(1)
        placeholder.kind = .deleted
        placeholder.content = [:]
        #expect(try store.saveMessages([placeholder]).hidden == [Self.chat: [1]], "a page showing it deleted")
        #expect(try store.allMessages(in: Self.chat).map(\.seq) == [4])
    }

    @Test func clearedHistoryIsHiddenNeverFetchedAndLateArrivalsStayHidden() throws {
        let store = try signedInStore(maxSeq: 6)
        try store.saveMessages([text(2), text(5), text(6)])
        let changes = try store.applyEvent(
            settingsEvent(1, Self.chat.rawValue, ConversationSettings(clearedUpToSeq: 5)))
        #expect(changes.hidden == [Self.chat: [2, 5]])
        #expect(try store.allMessages(in: Self.chat).map(\.seq) == [6])
        #expect(try store.holes(in: Self.chat, within: 1...6).isEmpty, "nothing up to 5 is fetched")
        #expect(try store.conversationsWithHoles().isEmpty)
        try store.saveMessages([text(3)])
        #expect(try store.allMessages(in: Self.chat).map(\.seq) == [6])
    }

    @Test func mentionCountsComeWithSummariesRiseWithNewMentionsAndClearOnRead() throws {
        let store = try signedInStore()
        func summary(maxSeq: Int64, readSeq: Int64, mentions: Int) -> ConversationSummary {
            ConversationSummary(
                id: Self.chat, kind: .group, name: "g", peerId: nil, memberCount: 3, maxSeq: maxSeq, readSeq: readSeq,
                othersDeliveredSeq: 2, unreadMentions: mentions, lastMessage: nil, createdAt: 0, lastActivityAt: 0)
        }
        _ = try store.applySync(
            SyncResponse(
                conversations: [summary(maxSeq: 2, readSeq: 0, mentions: 1)], events: [], cursor: "c", hasMore: false))
        #expect(try store.conversation(Self.chat)?.unreadMentions == 1)
        #expect(try store.conversation(Self.chat)?.othersDeliveredSeq == 2)

        try store.saveMessages([text(3, mentions: Mentions([Self.me]))])
        try store.saveMessages([text(4, mentions: Mentions(all: true))])
        try store.saveMessages([text(5, from: Self.me, mentions: Mentions([Self.me]))])
        try store.saveMessages([text(6, mentions: Mentions([UserID(3)]))])
        #expect(try store.conversation(Self.chat)?.unreadMentions == 3, "by id and @all, not one's own")
        try store.applyEvent(updatedEvent(7, recalled(text(4, mentions: Mentions(all: true)))))
        #expect(try store.conversation(Self.chat)?.unreadMentions == 2, "a recalled mention stops counting")

        try store.markReadLocally(Self.chat, upTo: 6)
        #expect(try store.conversation(Self.chat)?.unreadMentions == 0)
        try store.saveConversation(summary(maxSeq: 6, readSeq: 2, mentions: 2))
        #expect(try store.conversation(Self.chat)?.unreadMentions == 0, "an older summary read before the read")
    }

    /// A summary of ``chat`` as a sync page brings it.
    func chatSummary(maxSeq: Int64, readSeq: Int64 = 0, mentions: Int = 0, last: Message?) -> ConversationSummary {
        ConversationSummary(
            id: Self.chat, kind: .group, name: "g", peerId: nil, memberCount: 3, maxSeq: maxSeq, readSeq: readSeq,
            unreadMentions: mentions, lastMessage: last, createdAt: 0, lastActivityAt: 1_000 + maxSeq)
    }

    func syncPage(_ conversations: [ConversationSummary], _ events: [UserEvent] = []) -> SyncResponse {
        SyncResponse(conversations: conversations, events: events, cursor: "c", hasMore: false)
    }

    @Test func thePreviewOfASummaryReadBeforeAPushedRecallOrEditKeepsTheNewestForm() throws {
        let store = try signedInStore()
        let original = text(1, "secret")
        try store.saveMessages([original])
        try store.applyEvent(updatedEvent(1, recalled(original)))
        _ = try store.applySync(syncPage([chatSummary(maxSeq: 1, last: original)]))
        #expect(try store.conversation(Self.chat)?.lastMessage == recalled(original), "not the recalled text")

        let second = text(2, "draft")
        try store.saveMessages([second])
        let edit = edited(second, "final", at: 9_000)
        try store.applyEvent(updatedEvent(2, edit))
        _ = try store.applySync(syncPage([chatSummary(maxSeq: 2, last: second)]))
        #expect(try store.conversation(Self.chat)?.lastMessage == edit)
        try store.saveConversation(chatSummary(maxSeq: 2, last: second))
        #expect(try store.conversation(Self.chat)?.lastMessage == edit, "a summary saved outside sync too")

        let newer = edited(second, "newest", at: 9_500)
        try store.saveConversation(chatSummary(maxSeq: 2, last: newer))
        #expect(try store.conversation(Self.chat)?.lastMessage == newer, "a summary newer than the held form")
    }

    @Test func thePreviewOfAMessageDeletedForTheUserStaysAPlaceholderWhenTheMessageIsEdited() throws {
        let store = try signedInStore()
        let message = text(1, "hello")
        try store.saveMessages([message])
        try store.applyEvent(UserEvent(seq: 1, at: 0, MessagesDeleted(conversationId: Self.chat, seqs: [1]).body))
        let edit = edited(message, "hello, edited", at: 9_000)
        #expect(try store.applyEvent(updatedEvent(2, edit)) == StoreChanges(), "nothing shown changes")
        let last = try #require(try store.conversation(Self.chat)?.lastMessage)
        #expect(last.kind == .deleted)
        #expect(last.content == [:])
        #expect(last.id == message.id)
        #expect(last.editedAt == nil)
        _ = try store.applySync(syncPage([chatSummary(maxSeq: 1, last: edit)]))
        #expect(try store.conversation(Self.chat)?.lastMessage?.kind == .deleted, "nor does an older summary")
    }

    @Test func clearingHistoryClearsThePreview() throws {
        let store = try signedInStore()
        try store.saveMessages([text(1), text(2)])
        #expect(try store.conversation(Self.chat)?.lastMessage == text(2))
        try store.applyEvent(settingsEvent(1, Self.chat.rawValue, ConversationSettings(clearedUpToSeq: 2)))
        #expect(try store.conversation(Self.chat)?.lastMessage == nil)
        try store.saveMessages([text(3)])
        #expect(try store.conversation(Self.chat)?.lastMessage == text(3), "a later message shows again")
    }

    @Test func thePreviewOfAReplyQuotesItsTargetAsItNowStands() throws {
        let store = try signedInStore()
        let target = text(1, "original words")
        var reply = text(2, from: Self.me, "agreed")
        reply.kind = .reply
        reply.content = OutgoingContent.reply("agreed", to: target.id)
        reply.quote = MessageQuote(of: target)
        try store.saveMessages([target, reply])
        let edit = edited(target, "better words", at: 5_000)
        try store.applyEvent(updatedEvent(1, edit))
        #expect(try store.conversation(Self.chat)?.lastMessage?.quote == MessageQuote(of: edit))
        try store.applyEvent(updatedEvent(2, recalled(target)))
        #expect(try store.conversation(Self.chat)?.lastMessage?.quote?.kind == .recalled)
        #expect(try store.conversation(Self.chat)?.lastMessage?.quote?.text == nil)
    }

    @Test func aMessageDeletedBeforeItArrivedTakesItsIdSoRepliesFollowIt() throws {
        let store = try signedInStore()
        try store.applyEvent(UserEvent(seq: 1, at: 0, MessagesDeleted(conversationId: Self.chat, seqs: [1]).body))
        let target = text(1, "words")
        #expect(try store.saveMessages([target]) == StoreChanges())
        #expect(try store.allMessages(in: Self.chat).isEmpty, "still hidden")
        #expect(try store.message(withId: target.id, in: Self.chat) == nil)
        try store.applyEvent(updatedEvent(2, recalled(target)))

        // A reply whose push was on its way while its target was recalled.
        var late = text(2, "me too")
        late.kind = .reply
        late.content = OutgoingContent.reply("me too", to: target.id)
        late.quote = MessageQuote(of: target)
        try store.saveMessages([late])
        #expect(try store.message(in: Self.chat, seq: 2)?.quote?.kind == .recalled)
    }

    @Test func aRecalledMentionCountsOnceWhenItsSummaryAndItsEventComeInTheSameSync() throws {
        let store = try signedInStore()
        let first = text(1, mentions: Mentions([Self.me]))
        let second = text(2, mentions: Mentions([Self.me]))
        try store.saveMessages([first, second])
        #expect(try store.conversation(Self.chat)?.unreadMentions == 2)
        // Offline, the first was recalled: the summary counts 1, and the recall comes as an event.
        _ = try store.applySync(
            syncPage([chatSummary(maxSeq: 2, mentions: 1, last: second)], [updatedEvent(1, recalled(first))]))
        #expect(try store.conversation(Self.chat)?.unreadMentions == 1)
        #expect(try store.allMessages(in: Self.chat).first == recalled(first))

        // The summary's last message is the recalled mention itself.
        _ = try store.applySync(syncPage([chatSummary(maxSeq: 2, mentions: 0, last: recalled(second))]))
        #expect(try store.conversation(Self.chat)?.unreadMentions == 0)

        // The recall in a later page of the same run than the summary.
        let third = text(3, mentions: Mentions([Self.me]))
        let fourth = text(4, mentions: Mentions([Self.me]))
        try store.saveMessages([third, fourth])
        #expect(try store.conversation(Self.chat)?.unreadMentions == 2)
        _ = try store.applySync(syncPage([chatSummary(maxSeq: 4, mentions: 1, last: fourth)]))
        _ = try store.applySync(syncPage([], [updatedEvent(3, recalled(third))]), summarized: [Self.chat])
        #expect(try store.conversation(Self.chat)?.unreadMentions == 1)

        // Pushed, or in a sync that does not summarise the conversation, a recall counts.
        try store.applyEvent(updatedEvent(4, recalled(fourth)))
        #expect(try store.conversation(Self.chat)?.unreadMentions == 0)
    }
}
