import Foundation
import ParleyCore
import Testing

/// History pages by seq; sync reports what changed since a cursor, in pages.
@Suite struct HistoryAndSyncTests {
    @Test func historyPagesBackwardAndForwardBySeq() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let conversation = try await api.createGroup("pages", by: alice, with: [bob])
            for number in 1...25 { _ = try await api.sendText("m\(number)", to: conversation, as: alice) }
            let base = "/v1/conversations/\(conversation)/messages"

            let newest: HistoryPage = try await api.call(.get, "\(base)?limit=10", token: bob.token)
            #expect(newest.messages.map(\.seq) == Array(16...25))
            #expect(newest.hasMore)
            let older: HistoryPage = try await api.call(.get, "\(base)?before=16&limit=10", token: bob.token)
            #expect(older.messages.map(\.seq) == Array(6...15))
            let oldest: HistoryPage = try await api.call(.get, "\(base)?before=6&limit=10", token: bob.token)
            #expect(oldest.messages.map(\.seq) == Array(1...5))
            #expect(!oldest.hasMore)
            let range: HistoryPage = try await api.call(.get, "\(base)?after=20", token: bob.token)
            #expect(range.messages.map(\.seq) == Array(21...25))
            #expect(!range.hasMore)
            let hole: HistoryPage = try await api.call(.get, "\(base)?after=9&before=13", token: bob.token)
            #expect(hole.messages.map(\.seq) == [10, 11, 12])

            let tooBig = try await capture {
                let _: HistoryPage = try await api.call(.get, "\(base)?limit=1000", token: bob.token)
            }
            #expect(tooBig?.error.code == .invalidField)
            let notANumber = try await capture {
                let _: HistoryPage = try await api.call(.get, "\(base)?before=x", token: bob.token)
            }
            #expect(notANumber?.error.code == .invalidField)
        }
    }

    @Test func syncWithoutCursorIsASnapshotAndWithCursorOnlyTheChanges() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            var conversations: [ConversationID] = []
            for number in 0..<7 {
                let id = try await api.createGroup("g\(number)", by: alice, with: [bob])
                _ = try await api.sendText("hello \(number)", to: id, as: alice)
                conversations.append(id)
            }

            var snapshot: [ConversationSummary] = []
            var cursor: String?
            var pages = 0
            repeat {
                let query = cursor.map { "?cursor=\($0)&limit=3" } ?? "?limit=3"
                let page: SyncResponse = try await api.call(.get, "/v1/sync\(query)", token: bob.token)
                #expect(page.events.isEmpty, "a snapshot starts at the current event position")
                snapshot += page.conversations
                cursor = page.cursor
                pages += 1
                if !page.hasMore { break }
            } while true
            #expect(pages == 3)
            #expect(Set(snapshot.map(\.id)) == Set(conversations))
            #expect(snapshot.allSatisfy { $0.maxSeq == 1 && $0.unreadCount == 1 && $0.lastMessage?.seq == 1 })

            _ = try await api.sendText("news", to: conversations[4], as: alice)
            let dave = try await api.signUp("dave")
            let _: MembersAdded = try await api.call(
                .post, "/v1/conversations/\(conversations[2])/members", AddMembersRequest(userIds: [dave.id]),
                token: alice.token)
            let changes: SyncResponse = try await api.call(.get, "/v1/sync?cursor=\(cursor!)", token: bob.token)
            #expect(Set(changes.conversations.map(\.id)) == [conversations[4], conversations[2]])
            #expect(changes.events.isEmpty, "members learn of a join from its notice, not from an event each")
            let joined = try #require(changes.conversations.first { $0.id == conversations[2] }?.lastMessage)
            #expect(joined.typedContent == .system(SystemNotice(.memberJoined, by: alice.id, about: [dave.id])))
            #expect(changes.conversations.first { $0.id == conversations[4] }?.unreadCount == 2)

            let again: SyncResponse = try await api.call(.get, "/v1/sync?cursor=\(changes.cursor)", token: bob.token)
            #expect(again.conversations.isEmpty && again.events.isEmpty)

            let forged = try await capture {
                let _: SyncResponse = try await api.call(.get, "/v1/sync?cursor=garbage", token: bob.token)
            }
            #expect(forged?.error.code == .invalidCursor)
        }
    }

    @Test func readWatermarkOnlyMovesForwardAndClampsToTheLastMessage() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let conversation = try await api.createGroup("reads", by: alice, with: [bob])
            for number in 1...5 { _ = try await api.sendText("m\(number)", to: conversation, as: alice) }
            let path = "/v1/conversations/\(conversation)/read"
            let three: ReadReceipt = try await api.call(.post, path, ReadRequest(seq: 3), token: bob.token)
            #expect(three.seq == 3)
            let back: ReadReceipt = try await api.call(.post, path, ReadRequest(seq: 1), token: bob.token)
            #expect(back.seq == 3)
            let beyond: ReadReceipt = try await api.call(.post, path, ReadRequest(seq: 99), token: bob.token)
            #expect(beyond.seq == 5)
            let detail: ConversationDetail = try await api.call(
                .get, "/v1/conversations/\(conversation)", token: alice.token)
            #expect(detail.members.first { $0.userId == bob.id }?.readSeq == 5)
            #expect(detail.members.first { $0.userId == alice.id }?.role == .owner)
        }
    }
}
