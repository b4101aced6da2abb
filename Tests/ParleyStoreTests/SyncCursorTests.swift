import ParleyCore
import ParleyStore
import Testing

@Suite struct SyncCursorTests {
    @Test func cursorRoundTripsThroughItsOpaqueForm() throws {
        let cursor = SyncCursor(eventSeq: 12, version: 3456)
        #expect(try SyncCursor(encoded: cursor.encoded) == cursor)
    }

    @Test(arguments: ["", "c1", "c1.1", "c2.1.2", "c1.-1.2", "c1.a.2", "c1.1.2.3"])
    func foreignCursorsAreRejected(_ text: String) {
        #expect(throws: ParleyError.self) { try SyncCursor(encoded: text) }
    }

    /// A snapshot may hold changes above the version it is known complete up to (PostgreSQL's
    /// concurrent sends): a full page's cursor never passes that version, so whatever is
    /// below it and not yet visible comes in a later page.
    @Test func aPageCursorStopsAtTheCompleteVersionEvenWithNewerRowsInThePage() throws {
        func summary(_ id: Int64) -> ConversationSummary {
            ConversationSummary(
                id: ConversationID(id), kind: .group, name: "g", peerId: nil, memberCount: 2, maxSeq: 0, readSeq: 0,
                lastMessage: nil, createdAt: 0, lastActivityAt: 0)
        }
        let paging = SyncPaging(cursor: SyncCursor(eventSeq: 0, version: 10), userEventSeq: 0, limit: 2)
        let changed = [(summary(1), Int64(11)), (summary(2), 15), (summary(3), 16)]
        let full = try paging.batch(eventBodies: [], changed: changed, currentVersion: 12)
        #expect(full.hasMore && full.cursor.version == 12, "not 15: a version at 13 or 14 may still commit")
        let below = try paging.batch(eventBodies: [], changed: changed, currentVersion: 20)
        #expect(below.cursor.version == 15, "the last row, when the page is all complete")
        let last = try paging.batch(eventBodies: [], changed: Array(changed.prefix(2)), currentVersion: 12)
        #expect(!last.hasMore && last.cursor.version == 12)
    }
}
