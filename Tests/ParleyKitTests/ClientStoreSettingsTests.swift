import GRDB
import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyKit

/// The user's own conversation settings in the local store, and the list model they order
/// and filter.
extension ClientStoreTests {
    func summary(
        _ id: Int64, maxSeq: Int64 = 0, activity: Int64 = 0, _ settings: ConversationSettings = ConversationSettings()
    ) -> ConversationSummary {
        ConversationSummary(
            id: ConversationID(id), kind: .group, name: "g\(id)", peerId: nil, memberCount: 2, maxSeq: maxSeq,
            readSeq: 0, lastMessage: nil, createdAt: 0, lastActivityAt: activity, settings: settings)
    }

    func settingsEvent(_ seq: Int64, _ id: Int64, _ settings: ConversationSettings) -> UserEvent {
        UserEvent(seq: seq, at: 100 + seq, SettingsUpdated(conversationId: ConversationID(id), settings: settings).body)
    }

    func sync(_ events: [UserEvent], _ conversations: [ConversationSummary] = [], cursor: String) -> SyncResponse {
        SyncResponse(conversations: conversations, events: events, cursor: cursor, hasMore: false)
    }

    /// A settings change pushed while a sync was in flight is newer than that page's summary:
    /// the page must not put the old settings back, nor an older event; a summary read after
    /// every event synced wins.
    @Test func settingsSetByANewerEventSurviveAnOlderSummaryOrEvent() throws {
        let store = try ClientStore(path: nil)
        let id = ConversationID(5)
        _ = try store.applySync(sync([], [summary(5)], cursor: "c1"))
        #expect(try store.settings(of: id) == ConversationSettings(), "the defaults")

        let pinnedAndMuted = ConversationSettings(pinnedAt: 50, muted: true, draft: "later", draftSavedAt: 60)
        try store.applyEvent(settingsEvent(10, 5, pinnedAndMuted))
        #expect(try store.settings(of: id) == pinnedAndMuted)
        _ = try store.applySync(sync([], [summary(5)], cursor: "c2"))
        #expect(try store.settings(of: id) == pinnedAndMuted, "the page was read before the pushed event")
        try store.saveConversation(summary(5))
        #expect(try store.settings(of: id) == pinnedAndMuted, "so was a summary answered over HTTP")

        try store.applyEvent(settingsEvent(9, 5, ConversationSettings(muted: true)))
        #expect(try store.settings(of: id) == pinnedAndMuted, "an older event replayed late")
        try store.applyEvent(settingsEvent(10, 5, pinnedAndMuted))
        #expect(try store.settings(of: id) == pinnedAndMuted, "the same event twice")

        _ = try store.applySync(sync([settingsEvent(10, 5, pinnedAndMuted)], [summary(5)], cursor: "c3"))
        #expect(try store.settings(of: id) == ConversationSettings(), "a page covering event 10 wins")

        let unmuted = ConversationSettings(pinnedAt: 50)
        try store.saveConversation(summary(5, unmuted))
        #expect(try store.settings(of: id) == unmuted, "a summary read after every event synced wins")
        try store.applyEvent(settingsEvent(11, 5, pinnedAndMuted))
        #expect(try store.settings(of: id) == pinnedAndMuted, "a newer event wins over it")
    }

    @Test func aSettingsEventForAConversationNotHeldIsLeftToItsSummary() throws {
        let store = try ClientStore(path: nil)
        try store.applyEvent(settingsEvent(3, 8, ConversationSettings(muted: true)))
        #expect(try store.conversation(ConversationID(8)) == nil)
        _ = try store.applySync(sync([], [summary(8, ConversationSettings(muted: true))], cursor: "c1"))
        #expect(try store.settings(of: ConversationID(8)).muted)
    }

    @Test func aHiddenConversationLeavesTheListUntilANewMessageArrives() throws {
        let store = try ClientStore(path: nil)
        let list = ConversationList(store: store)
        _ = try store.applySync(
            sync([], [summary(1, maxSeq: 2, activity: 10), summary(2, activity: 20)], cursor: "c1"))
        try store.saveMessages([message(1, in: ConversationID(1)), message(2, in: ConversationID(1))])
        #expect(try list.current().map(\.id.rawValue) == [1, 2])

        try store.applyEvent(settingsEvent(4, 1, ConversationSettings(hiddenUpToSeq: 2)))
        #expect(try list.current().map(\.id.rawValue) == [2], "hidden")
        #expect(try store.conversations().map(\.id.rawValue) == [1, 2], "still held")
        try store.saveMessages([message(2, in: ConversationID(1))])
        #expect(try list.current().map(\.id.rawValue) == [2], "a seq held already raises nothing")

        try store.saveMessages([message(3, in: ConversationID(1))])
        let back = try list.current()
        #expect(back.map(\.id.rawValue) == [1, 2], "back, at the top, with its new message")
        #expect(back.first?.settings.hiddenUpToSeq == 2, "the setting itself stays as the server keeps it")
    }

    @Test func pinnedConversationsComeFirstInTheOrderPinnedThenTheRestByActivity() throws {
        let store = try ClientStore(path: nil)
        let list = ConversationList(store: store)
        _ = try store.applySync(
            sync(
                [],
                [
                    summary(1, activity: 10), summary(2, activity: 20), summary(3, activity: 30),
                    summary(4, activity: 40),
                ],
                cursor: "c1"))
        #expect(try list.current().map(\.id.rawValue) == [4, 3, 2, 1])

        try store.applyEvent(settingsEvent(1, 2, ConversationSettings(pinnedAt: 500, muted: true)))
        try store.applyEvent(settingsEvent(2, 1, ConversationSettings(pinnedAt: 700, draft: "hi", draftSavedAt: 700)))
        let shown = try list.current()
        #expect(shown.map(\.id.rawValue) == [2, 1, 4, 3], "pinned first, earliest pinned first")
        #expect(shown.map(\.isPinned) == [true, true, false, false])
        #expect(shown.map(\.isMuted) == [true, false, false, false])
        #expect(shown.map(\.draft) == ["", "hi", "", ""])

        try store.saveMessages([message(1, in: ConversationID(3))])
        #expect(try list.current().map(\.id.rawValue) == [2, 1, 3, 4], "activity reorders only the unpinned")
        try store.applyEvent(settingsEvent(3, 2, ConversationSettings(muted: true)))
        #expect(try list.current().map(\.id.rawValue) == [1, 3, 4, 2], "unpinned: back to its place by activity")
        try store.applyEvent(
            settingsEvent(4, 3, ConversationSettings(pinnedAt: 900, hiddenUpToSeq: 1)))
        #expect(try list.current().map(\.id.rawValue) == [1, 4, 2], "hidden wins over pinned while it lasts")
    }

    /// The live list sends a snapshot per change, which a view turns into steps with
    /// ``ListDiff``; a change that leaves the list as it was sends nothing.
    @Test func theLiveListSendsASnapshotPerChangeThatDiffsIntoTheNextOne() async throws {
        let store = try ClientStore(path: nil)
        _ = try store.applySync(sync([], [summary(1, activity: 10), summary(2, activity: 20)], cursor: "c1"))
        var updates = ConversationList(store: store).updates().makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.map(\.id.rawValue) == [2, 1])

        try store.saveConversation(summary(9, activity: 5, ConversationSettings(hiddenUpToSeq: 0)))
        try store.applyEvent(settingsEvent(1, 1, ConversationSettings(pinnedAt: 1)))
        var next = try #require(try await updates.next())
        if next.map(\.id.rawValue) == [2, 1] { next = try #require(try await updates.next()) }
        #expect(next.map(\.id.rawValue) == [1, 2], "the hidden conversation changed nothing shown")
        let steps = ListDiff.changes(from: first.map(Entry.init), to: next.map(Entry.init))
        #expect(steps.count == 2, "one move and one update: \(steps)")
        #expect(ListDiff.apply(steps, to: first.map(Entry.init)) == next.map(Entry.init))
    }

    struct Entry: Identifiable, Equatable, Sendable {
        let summary: ConversationSummary
        var id: ConversationID { summary.id }
    }
}
