import GRDB
import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyKit

/// The contact book in the local store: what each contact event does to it, how the book
/// orders and splits what it holds, and how a whole fetch yields to an event that came in
/// while it ran.
extension ClientStoreTests {
    static let owner = UserID(1)

    func person(_ id: Int64, _ nickname: String) -> User {
        User(id: UserID(id), username: "u\(id)", nickname: nickname, signature: "", createdAt: 0)
    }

    func request(
        _ id: Int64, from: Int64, to: Int64, _ status: FriendRequestStatus, updated: Int64 = 10, expires: Int64 = 1_000
    ) -> FriendRequest {
        FriendRequest(
            id: FriendRequestID(id), from: person(from, "p\(from)"), to: person(to, "p\(to)"), message: "",
            status: status, createdAt: 1, updatedAt: updated, expiresAt: expires)
    }

    func event(_ seq: Int64, _ payload: any UserEventPayload) -> UserEvent {
        UserEvent(seq: seq, at: seq, payload.body)
    }

    @Test func contactEventsBuildABookSortedByTheNameTheUserKnowsEachFriendBy() throws {
        let store = try ClientStore(path: nil)
        try store.applyEvent(event(1, ContactUpdated(contact: Contact(user: person(2, "zoe"), remark: "", since: 5))))
        try store.applyEvent(event(2, ContactUpdated(contact: Contact(user: person(3, "bob"), remark: "", since: 6))))
        let first = try store.contactBook(of: Self.owner, at: 0)
        #expect(first.friends.map(\.displayName) == ["bob", "zoe"])

        try store.applyEvent(
            event(3, ContactUpdated(contact: Contact(user: person(2, "zoe"), remark: "Aunt", since: 5))))
        try store.applyEvent(event(4, ContactRemoved(userId: UserID(3))))
        try store.applyEvent(event(5, ContactUpdated(contact: Contact(user: person(4, "Carl"), remark: "", since: 7))))
        let next = try store.contactBook(of: Self.owner, at: 0)
        #expect(next.friends.map(\.displayName) == ["Aunt", "Carl"], "a remark names and sorts; case is ignored")
        let steps = ListDiff.changes(from: first.friends, to: next.friends)
        #expect(ListDiff.apply(steps, to: first.friends) == next.friends, "snapshots diff into list steps")

        try store.applyEvent(event(6, BlockAdded(blocked: BlockedUser(user: person(4, "Carl"), since: 9))))
        let blocked = try store.contactBook(of: Self.owner, at: 0)
        #expect(blocked.hasBlocked(UserID(4)) && !blocked.isFriend(UserID(4)), "a block ends a friendship")
        try store.applyEvent(event(7, BlockRemoved(userId: UserID(4))))
        #expect(try store.contactBook(of: Self.owner, at: 0).blocked.isEmpty)
    }

    @Test func requestsSplitIntoIncomingOutgoingAndIgnoredAndLapseAtTheirExpiry() throws {
        let store = try ClientStore(path: nil)
        try store.applyEvent(
            event(1, FriendRequestUpdated(request: request(10, from: 2, to: 1, .pending, updated: 20))))
        try store.applyEvent(
            event(2, FriendRequestUpdated(request: request(11, from: 3, to: 1, .pending, updated: 30))))
        try store.applyEvent(event(3, FriendRequestUpdated(request: request(12, from: 1, to: 4, .pending))))
        try store.applyEvent(event(4, FriendRequestUpdated(request: request(13, from: 5, to: 1, .ignored))))
        try store.applyEvent(
            event(5, FriendRequestUpdated(request: request(14, from: 6, to: 1, .pending, expires: 50))))
        let book = try store.contactBook(of: Self.owner, at: 100)
        #expect(book.incoming.map(\.id.rawValue) == [11, 10], "newest first; the lapsed one is gone")
        #expect(book.outgoing.map(\.id.rawValue) == [12])
        #expect(book.ignored.map(\.id.rawValue) == [13])
        try store.applyEvent(event(6, FriendRequestUpdated(request: request(11, from: 3, to: 1, .accepted))))
        #expect(try store.contactBook(of: Self.owner, at: 100).incoming.map(\.id.rawValue) == [10])
    }

    @Test func friendGroupsComeAndGoAndADeletedGroupLeavesEveryFriend() throws {
        let store = try ClientStore(path: nil)
        let work = FriendGroup(id: FriendGroupID(7), name: "Work", createdAt: 1)
        try store.applyEvent(event(1, FriendGroupUpdated(group: work)))
        let friend = Contact(user: person(2, "zoe"), remark: "", since: 5, groups: [FriendGroupID(7)])
        try store.applyEvent(event(2, ContactUpdated(contact: friend)))
        #expect(try store.contactBook(of: Self.owner, at: 0).friends(in: work.id).map(\.user.id) == [UserID(2)])
        try store.applyEvent(event(3, FriendGroupRemoved(groupId: work.id)))
        let book = try store.contactBook(of: Self.owner, at: 0)
        #expect(book.groups.isEmpty && book.friends.first?.groups == [])
    }

    @Test func aWholeFetchIsNotAppliedOverAContactEventThatCameInWhileItRan() throws {
        let store = try ClientStore(path: nil)
        let mark = try store.contactEventMark()
        try store.applyEvent(event(1, ContactUpdated(contact: Contact(user: person(2, "zoe"), remark: "", since: 5))))
        let stale = try store.replaceContacts(
            [], groups: [], requests: FriendRequestList(incoming: [], outgoing: []), blocked: [], unchangedSince: mark)
        let kept = try store.contactBook(of: Self.owner, at: 0).friends.count
        let known = try store.contactsAreKnown()
        #expect(!stale && kept == 1 && !known, "the event survives and the book stays unknown")
        let fresh = try store.replaceContacts(
            [Contact(user: person(2, "zoe"), remark: "", since: 5)], groups: [],
            requests: FriendRequestList(incoming: [], outgoing: []), blocked: [],
            unchangedSince: try store.contactEventMark())
        let knownNow = try store.contactsAreKnown()
        #expect(fresh && knownNow)

        // A resync replays pushed events; the mark never goes back to an older one.
        try store.applyEvent(event(9, ContactRemoved(userId: UserID(7))))
        try store.applyEvent(event(4, ContactRemoved(userId: UserID(7))))
        #expect(try store.contactEventMark() == "9")
    }

    /// A page read before a pushed event was written brings older events that carry the same
    /// friend's old profile (a friend request keeps no seq for the profiles it carries): the
    /// pushed event, applied again after them, stays. And a push of an event a page already
    /// brought (late, from another node) is skipped: applied again, it would put back the old
    /// profile that the page's later events replaced.
    @Test func aPushedEventOutlivesAnOlderPageAndAPageOutlivesALatePush() throws {
        let store = try ClientStore(path: nil)
        func nickname() throws -> String? { try store.contactBook(of: Self.owner, at: 0).friends.first?.user.nickname }
        let asked = event(3, FriendRequestUpdated(request: request(10, from: 2, to: 1, .pending)))
        let accepted = event(4, FriendRequestUpdated(request: request(10, from: 2, to: 1, .accepted)))
        let renamed = event(5, ContactUpdated(contact: Contact(user: person(2, "Zoë"), remark: "", since: 5)))
        _ = try store.applySync(sync([], cursor: "c1"))
        try store.applyEvent(renamed)
        _ = try store.applySync(sync([asked, accepted], cursor: "c2"), replaying: [renamed])
        #expect(try nickname() == "Zoë", "the rename, pushed while the page was read, stays")

        _ = try store.applySync(sync([renamed], cursor: "c3"))
        try store.applyEvent(accepted)
        #expect(try nickname() == "Zoë", "a late push of the acceptance does not bring back the old profile")
    }

    /// Events applied out of order (pushes from several nodes): an older one about
    /// the same request, friend, block, friend group or the user's own profile never undoes a
    /// newer one, and a friend group removed by a newer event stays out of an older
    /// `contact.updated`.
    @Test func anOlderEventAppliedLateNeverUndoesANewerOne() throws {
        let store = try ClientStore(path: nil)
        func book() throws -> ContactBook { try store.contactBook(of: Self.owner, at: 100) }
        let zoe = Contact(user: person(2, "zoe"), remark: "", since: 5)

        try store.applyEvent(event(5, FriendRequestUpdated(request: request(10, from: 2, to: 1, .accepted))))
        try store.applyEvent(event(4, FriendRequestUpdated(request: request(10, from: 2, to: 1, .pending))))
        #expect(try book().incoming.isEmpty, "the answer stays")

        try store.applyEvent(event(7, ContactUpdated(contact: Contact(user: person(2, "Zoë"), remark: "", since: 5))))
        try store.applyEvent(event(6, ContactUpdated(contact: zoe)))
        #expect(try book().friends.map(\.user.nickname) == ["Zoë"], "the newer profile stays")
        try store.applyEvent(event(9, ContactRemoved(userId: UserID(2))))
        try store.applyEvent(event(8, ContactUpdated(contact: zoe)))
        #expect(try book().friends.isEmpty, "the friendship stays ended")

        try store.applyEvent(event(11, BlockRemoved(userId: UserID(3))))
        try store.applyEvent(event(10, BlockAdded(blocked: BlockedUser(user: person(3, "max"), since: 9))))
        #expect(try !book().hasBlocked(UserID(3)), "the block stays lifted")

        let work = FriendGroup(id: FriendGroupID(7), name: "Work", createdAt: 1)
        let play = FriendGroup(id: FriendGroupID(8), name: "Play", createdAt: 2)
        try store.applyEvent(event(15, FriendGroupUpdated(group: play)))
        try store.applyEvent(event(18, FriendGroupRemoved(groupId: work.id)))
        try store.applyEvent(event(16, FriendGroupUpdated(group: work)))
        let grouped = Contact(user: person(4, "ann"), remark: "", since: 5, groups: [work.id, play.id])
        try store.applyEvent(event(17, ContactUpdated(contact: grouped)))
        let after = try book()
        #expect(after.groups.map(\.name) == ["Play"], "the group stays deleted")
        #expect(after.friends.first?.groups == [play.id], "and out of an older contact.updated")

        let me = { (nickname: String) in
            ProfileUpdated(account: Account(user: self.person(1, nickname), email: nil, phone: nil))
        }
        try store.applyEvent(event(20, me("Alice L.")))
        try store.applyEvent(event(19, me("Alice")))
        #expect(try store.user(Self.owner)?.nickname == "Alice L.", "the user's own newer profile stays")
    }
}
