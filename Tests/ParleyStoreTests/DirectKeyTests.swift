import ParleyCore
import ParleyStore
import Testing

/// The key of a direct conversation, and finding the other user in it.
@Suite struct DirectKeyTests {
    @Test func theKeyIsTheSameWhoeverOpensAndNamesThePeerOfEitherSide() {
        let key = DirectKey.make(UserID(42), UserID(7))
        #expect(key == DirectKey.make(UserID(7), UserID(42)))
        #expect(key == "7:42")
        #expect(DirectKey.peer(in: key, of: UserID(7)) == UserID(42))
        #expect(DirectKey.peer(in: key, of: UserID(42)) == UserID(7))
        #expect(DirectKey.peer(in: "123456789012:5", of: UserID(5)) == UserID(123_456_789_012))
    }

    @Test func aKeyWithoutAnotherUserNamesNoPeer() {
        #expect(DirectKey.peer(in: "9:9", of: UserID(9)) == nil, "a conversation with oneself")
        for malformed in ["", "9", "9:", ":9", "a:9", "9:b", "9:10:11"] {
            #expect(DirectKey.peer(in: malformed, of: UserID(9)) == nil, "\(malformed)")
        }
    }
}
