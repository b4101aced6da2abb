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
}
