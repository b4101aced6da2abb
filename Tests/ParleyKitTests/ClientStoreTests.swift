import GRDB
import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyKit

@Suite struct ClientStoreTests {
    func message(_ seq: Int64, in conversation: ConversationID) -> Message {
        Message(
            id: MessageID(seq), conversationId: conversation, seq: seq, senderId: UserID(2), clientMsgId: "c\(seq)",
            kind: .text,
            content: ["text": .string("m\(seq)")], sentAt: 1_000 + seq)
    }

    @Test func aMessagePushedBeforeItsConversationWasKnownIsNotHiddenByAnOlderSummary() throws {
        let store = try ClientStore(path: nil)
        let id = ConversationID(7)
        try store.saveMessages([message(1, in: id)])
        let staleSummary = ConversationSummary(
            id: id, kind: .direct, name: nil, peerId: UserID(2), memberCount: 2, maxSeq: 0, readSeq: 0,
            lastMessage: nil,
            createdAt: 1_000, lastActivityAt: 1_000)
        try store.saveConversation(staleSummary)
        let saved = try #require(try store.conversation(id))
        #expect(saved.maxSeq == 1)
        #expect(saved.lastMessage == message(1, in: id))
        #expect(saved.unreadCount == 1)
        #expect(try store.conversationsWithHoles().isEmpty)
    }

    /// A rename pushed while a sync was in flight is newer than that page's summary: the
    /// page must not put the old name back, nor an older event a newer name.
    @Test func aGroupNameSetByANewerEventSurvivesAnOlderSummaryOrEvent() throws {
        let store = try ClientStore(path: nil)
        let id = ConversationID(3)
        func summary(_ name: String) -> ConversationSummary {
            ConversationSummary(
                id: id, kind: .group, name: name, peerId: nil, memberCount: 2, maxSeq: 0, readSeq: 0, lastMessage: nil,
                createdAt: 0, lastActivityAt: 0)
        }
        func renamed(_ name: String, seq: Int64) -> UserEvent {
            UserEvent(
                seq: seq, at: 0,
                ConversationUpdated(
                    conversationId: id, group: GroupProfile(name: name, ownerId: UserID(2)), updatedBy: UserID(2)
                )
                .body)
        }
        _ = try store.applySync(
            SyncResponse(conversations: [summary("first")], events: [], cursor: "c1", hasMore: false))
        try store.applyEvent(renamed("pushed", seq: 10))
        _ = try store.applySync(
            SyncResponse(conversations: [summary("first")], events: [], cursor: "c2", hasMore: false))
        #expect(try store.conversation(id)?.name == "pushed", "the page was read before the pushed rename")

        try store.applyEvent(renamed("older", seq: 9))
        #expect(try store.conversation(id)?.name == "pushed")

        let caughtUp = SyncResponse(
            conversations: [summary("latest")], events: [renamed("pushed", seq: 10), renamed("latest", seq: 11)],
            cursor: "c3", hasMore: false)
        _ = try store.applySync(caughtUp)
        #expect(try store.conversation(id)?.name == "latest")
        try store.saveConversation(summary("latest"))
        _ = try store.applySync(
            SyncResponse(conversations: [summary("later still")], events: [], cursor: "c4", hasMore: false))
        #expect(try store.conversation(id)?.name == "later still", "a page covering every event seen wins")
    }

    @Test func holesAreTheSeqsNotHeldAndHiddenMessagesCountAsHeld() throws {
        let store = try ClientStore(path: nil)
        let id = ConversationID(1)
        try store.saveConversation(
            ConversationSummary(
                id: id, kind: .group, name: "g", peerId: nil, memberCount: 3, maxSeq: 9, readSeq: 0, lastMessage: nil,
                createdAt: 0, lastActivityAt: 0))
        try store.saveMessages([1, 2, 5, 9].map { message($0, in: id) })
        #expect(try store.holes(in: id, within: 1...9) == [3...4, 6...8])
        try store.deleteLocalMessage(id, seq: 5)
        #expect(try store.holes(in: id, within: 1...9) == [3...4, 6...8], "deleted for me, never fetched again")
        #expect(try store.allMessages(in: id).map(\.seq) == [1, 2, 9])
    }

    @Test func aStoreWrittenByTheFirstSchemaIsMigratedWhenOpened() throws {
        let path = temporaryDirectory() + "/v1.sqlite"
        try ClientStore.migrator.migrate(DatabaseQueue(path: path), upTo: "v1")
        let store = try ClientStore(path: path)
        let id = ConversationID(3)
        try store.saveMessages([1, 2].map { message($0, in: id) })
        try store.deleteLocalMessage(id, seq: 1)
        #expect(try store.allMessages(in: id).map(\.seq) == [2])
    }

    /// Notification preferences follow the newest `notifications.updated`, and a store that
    /// kept that event's seq in `meta` (before v15) keeps it as the preferences' mark.
    @Test func notificationPreferencesFollowTheNewestEventAcrossTheMoveOfTheirSeq() throws {
        let path = temporaryDirectory() + "/before-marks.sqlite"
        do {
            let queue = try DatabaseQueue(path: path)
            try ClientStore.migrator.migrate(queue, upTo: "v1")
            try queue.write { db in
                try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('notifications.seq', '9')")
            }
        }
        let store = try ClientStore(path: path)
        func updated(_ seq: Int64, _ settings: NotificationSettings) -> UserEvent {
            UserEvent(seq: seq, at: seq, NotificationsUpdated(settings: settings).body)
        }
        try store.applyEvent(updated(8, NotificationSettings(direct: false)))
        #expect(try store.notificationSettings() == nil, "older than the event the store had applied")
        try store.applyEvent(updated(11, NotificationSettings(group: false)))
        try store.applyEvent(updated(10, NotificationSettings(direct: false)))
        #expect(try store.notificationSettings() == NotificationSettings(group: false), "the newest stays")
        #expect(try store.value("notifications.seq") == nil, "moved out of meta")
    }

    @Test func aKnownDirectConversationIsFoundByThePeersUsernameInAnyCase() throws {
        let store = try ClientStore(path: nil)
        try store.saveUser(User(id: UserID(2), username: "Bob", nickname: "b", signature: "", createdAt: 0))
        try store.saveUser(User(id: UserID(3), username: "carol", nickname: "c", signature: "", createdAt: 0))
        let direct = ConversationSummary(
            id: ConversationID(5), kind: .direct, name: nil, peerId: UserID(2), memberCount: 2, maxSeq: 0, readSeq: 0,
            lastMessage: nil, createdAt: 0, lastActivityAt: 0)
        let group = ConversationSummary(
            id: ConversationID(6), kind: .group, name: "team", peerId: nil, memberCount: 3, maxSeq: 0, readSeq: 0,
            lastMessage: nil, createdAt: 0, lastActivityAt: 0)
        try store.saveConversation(direct)
        try store.saveConversation(group)
        #expect(try store.directConversation(withUsername: "bob")?.id == direct.id)
        #expect(try store.directConversation(withUsername: "BOB")?.id == direct.id)
        #expect(
            try store.directConversation(withUsername: "carol") == nil, "a known user with no direct conversation yet")
        #expect(try store.directConversation(withUsername: "dave") == nil)
    }
}
