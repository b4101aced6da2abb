import GRDB
import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyKit

/// The local group state under pushes that run ahead of sync pages, snapshots read over HTTP
/// and events replayed late.
extension ClientStoreTests {
    static let group = ConversationID(4)
    static let (alice, bob, carol) = (UserID(1), UserID(2), UserID(3))

    func groupSummary(members: Int = 3, name: String = "team") -> ConversationSummary {
        ConversationSummary(
            id: Self.group, kind: .group, name: name, peerId: nil, memberCount: members, maxSeq: 0, readSeq: 0,
            lastMessage: nil, createdAt: 0, lastActivityAt: 0, group: GroupProfile(name: name, ownerId: Self.alice))
    }

    func detail(_ members: [Member]) -> ConversationDetail {
        ConversationDetail(conversation: groupSummary(members: members.count), members: members)
    }

    func member(_ id: UserID, _ role: MemberRole = .member, mutedUntil: Int64? = nil) -> Member {
        Member(userId: id, role: role, readSeq: 0, joinedAt: id.rawValue, mutedUntil: mutedUntil)
    }

    func event(_ seq: Int64, _ body: UserEventBody) -> UserEvent { UserEvent(seq: seq, at: 100 + seq, body) }

    func page(_ events: [UserEvent], conversations: [ConversationSummary] = []) -> SyncResponse {
        SyncResponse(conversations: conversations, events: events, cursor: "c\(events.last?.seq ?? 0)", hasMore: false)
    }

    /// The `system` message of a group change at `seq`, as the server stores it.
    func notice(_ seq: Int64, _ notice: SystemNotice) throws -> Message {
        Message(
            id: MessageID(seq), conversationId: Self.group, seq: seq, senderId: notice.actorId ?? Self.alice,
            clientMsgId: "n\(seq)", kind: .system,
            content: try JSONText.decode(JSONValue.self, from: JSONText.encode(notice)),
            sentAt: 1_000 + seq)
    }

    /// `members.removed` at event `seq`: `user` left (`by` themselves) or was removed, as of
    /// the conversation's seq `lastSeq`.
    func removal(_ seq: Int64, of user: UserID, by actor: UserID, lastSeq: Int64) -> UserEvent {
        event(
            seq,
            MembersRemoved(
                conversationId: Self.group, userIds: [user], reason: user == actor ? .left : .removed,
                removedBy: actor, lastSeq: lastSeq
            ).body)
    }

    func members(_ store: ClientStore) throws -> [UserID] {
        try store.group(Self.group, viewer: Self.alice).members.map(\.userId)
    }

    @Test func aJoinIsKnownFromItsNoticeAndAnOlderNoticeFilledInLateNeverUndoesANewerOne() throws {
        let store = try ClientStore(path: nil)
        _ = try store.applySync(page([]))
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob)]))
        try store.saveMessages([try notice(5, SystemNotice(.memberJoined, by: Self.alice, about: [Self.carol]))])
        #expect(try members(store) == [Self.alice, Self.bob, Self.carol])
        #expect(try store.group(Self.group, viewer: Self.alice).member(Self.carol)?.joinedAt == 1_005)
        #expect(try store.conversation(Self.group)?.memberCount == 3, "the count follows the list")

        let store2 = try ClientStore(path: nil)
        try store2.saveDetail(detail([member(Self.alice, .owner), member(Self.bob)]))
        try store2.saveMessages([try notice(7, SystemNotice(.memberRemoved, by: Self.alice, about: [Self.carol]))])
        try store2.saveMessages([try notice(5, SystemNotice(.memberJoined, by: Self.alice, about: [Self.carol]))])
        #expect(try members(store2) == [Self.alice, Self.bob], "the hole filled late holds an older join")
        try store2.saveMessages([try notice(9, SystemNotice(.memberJoined, by: Self.bob, about: [Self.carol]))])
        #expect(
            try store2.group(Self.group, viewer: Self.alice).member(Self.carol)
                == Member(userId: Self.carol, role: .member, readSeq: 0, joinedAt: 1_009), "added again")
        try store2.saveMessages([try notice(10, SystemNotice(.memberLeft, by: Self.carol))])
        #expect(try members(store2) == [Self.alice, Self.bob], "a member who leaves is the notice's actor")
        try store2.saveMessages([try notice(11, SystemNotice(.groupRenamed, by: Self.alice, text: "x"))])
        #expect(try members(store2) == [Self.alice, Self.bob], "other notices change no member")
    }

    @Test func aSnapshotCoversTheNoticesUpToItsMaxSeqAndNotThoseAfter() throws {
        let store = try ClientStore(path: nil)
        var summary = groupSummary(members: 2)
        summary.maxSeq = 10
        try store.saveDetail(
            ConversationDetail(conversation: summary, members: [member(Self.alice, .owner), member(Self.bob)]))
        try store.saveMessages([try notice(8, SystemNotice(.memberJoined, by: Self.alice, about: [Self.carol]))])
        #expect(try members(store) == [Self.alice, Self.bob], "carol joined at 8 and was gone by 10")
        try store.saveMessages([try notice(12, SystemNotice(.memberJoined, by: Self.alice, about: [Self.carol]))])
        try store.saveDetail(
            ConversationDetail(conversation: summary, members: [member(Self.alice, .owner), member(Self.bob)]))
        #expect(try members(store) == [Self.alice, Self.bob, Self.carol], "a snapshot older than the notice")
        summary.maxSeq = 13
        try store.saveDetail(
            ConversationDetail(conversation: summary, members: [member(Self.alice, .owner), member(Self.bob)]))
        #expect(try members(store) == [Self.alice, Self.bob], "a newer snapshot wins")
    }

    @Test func aMemberRemovedByAnEventStaysRemovedWhenAnOlderJoinIsFilledInAfterIt() throws {
        let store = try ClientStore(path: nil)
        _ = try store.applySync(page([]))
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob), member(Self.carol, .admin)]))
        try store.applyEvent(removal(6, of: Self.carol, by: Self.alice, lastSeq: 4))
        try store.saveMessages([try notice(3, SystemNotice(.memberJoined, by: Self.alice, about: [Self.carol]))])
        #expect(try members(store) == [Self.alice, Self.bob])
        try store.saveMessages([try notice(5, SystemNotice(.memberJoined, by: Self.alice, about: [Self.carol]))])
        #expect(
            try store.group(Self.group, viewer: Self.alice).member(Self.carol)?.role == .member,
            "back as a plain member: the removal cleared the old role")
    }

    @Test func aRemovalStoredBeforeItNamedItsSeqLeavesWhoIsInTheGroupToTheNotice() throws {
        let store = try ClientStore(path: nil)
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob), member(Self.carol, .admin)]))
        let old = try JSONText.decode(
            UserEvent.self,
            from:
                #"{"seq":4,"type":"members.removed","conversationId":4,"userIds":[3],"reason":"left","removedBy":3,"at":9}"#
        )
        try store.applyEvent(old)
        #expect(try members(store) == [Self.alice, Self.bob, Self.carol], "it cannot be placed among the notices")
        #expect(try store.group(Self.group, viewer: Self.alice).member(Self.carol)?.role == .member)
        try store.saveMessages([try notice(2, SystemNotice(.memberLeft, by: Self.carol))])
        #expect(try members(store) == [Self.alice, Self.bob])
    }

    @Test func leavingADissolvedGroupWinsOverASnapshotReadAtTheSameSeq() throws {
        let store = try ClientStore(path: nil)
        var summary = groupSummary()
        summary.maxSeq = 10
        let before = ConversationDetail(
            conversation: summary, members: [member(Self.alice, .owner), member(Self.bob), member(Self.carol)])
        try store.saveDetail(before)
        try store.applyEvent(removal(3, of: Self.carol, by: Self.carol, lastSeq: 10))
        #expect(try members(store) == [Self.alice, Self.bob])
        try store.saveDetail(before)
        #expect(try members(store) == [Self.alice, Self.bob], "the group takes no notice after dissolving")
    }

    @Test func aPlaceholderForASeqNeverHeldMakesTheMemberListIncompleteSinceItMayHideANotice() throws {
        let store = try ClientStore(path: nil)
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob)]))
        try store.saveMessages([message(1, in: Self.group)])
        var deleted = message(1, in: Self.group)
        deleted.kind = .deleted
        deleted.content = [:]
        try store.saveMessages([deleted])
        #expect(try store.group(Self.group, viewer: Self.alice).membersAreComplete, "a seq held was no notice")
        deleted.seq = 2
        try store.saveMessages([deleted])
        #expect(try store.group(Self.group, viewer: Self.alice).membersAreComplete == false)
    }

    @Test func aRoleSetForAMemberNotYetKnownWaitsForTheNoticeOfTheirJoining() throws {
        let store = try ClientStore(path: nil)
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob)]))
        try store.applyEvent(
            event(
                3,
                MembersUpdated(conversationId: Self.group, members: [member(Self.carol, .admin)], updatedBy: Self.alice)
                    .body))
        #expect(try members(store) == [Self.alice, Self.bob], "an event about a member does not make them one")
        try store.saveMessages([try notice(2, SystemNotice(.memberJoined, by: Self.alice, about: [Self.carol]))])
        #expect(try store.group(Self.group, viewer: Self.alice).member(Self.carol)?.role == .admin)
    }

    @Test func aRoleOrMuteSetByANewerEventSurvivesAnOlderEventOrSnapshot() throws {
        let store = try ClientStore(path: nil)
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob), member(Self.carol)]))
        func updated(_ seq: Int64, _ members: [Member]) -> UserEvent {
            event(seq, MembersUpdated(conversationId: Self.group, members: members, updatedBy: Self.alice).body)
        }
        try store.applyEvent(updated(9, [member(Self.bob, .admin), member(Self.carol, mutedUntil: 5_000)]))
        _ = try store.applySync(page([updated(8, [member(Self.bob)])]))
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob), member(Self.carol)]))
        var snapshot = try store.group(Self.group, viewer: Self.alice)
        #expect(snapshot.member(Self.bob)?.role == .admin, "the page and the snapshot were read before event 9")
        #expect(snapshot.member(Self.carol)?.mutedUntil == 5_000)

        _ = try store.applySync(page([updated(9, [member(Self.bob, .admin), member(Self.carol, mutedUntil: 5_000)])]))
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob), member(Self.carol)]))
        snapshot = try store.group(Self.group, viewer: Self.alice)
        #expect(snapshot.member(Self.bob)?.role == .member, "a snapshot read after every event synced wins")
        #expect(snapshot.member(Self.carol)?.mutedUntil == nil)
    }

    @Test func theProfileFollowsTheNewestUpdateAndASummaryCoveringIt() throws {
        let store = try ClientStore(path: nil)
        _ = try store.applySync(page([], conversations: [groupSummary()]))
        var profile = GroupProfile(name: "team", ownerId: Self.alice)
        profile.announcement = GroupAnnouncement(text: "ship it", updatedBy: Self.alice, updatedAt: 1)
        profile.muteAll = true
        try store.applyEvent(
            event(12, ConversationUpdated(conversationId: Self.group, group: profile, updatedBy: Self.alice).body))
        _ = try store.applySync(page([], conversations: [groupSummary()]))
        #expect(try store.group(Self.group, viewer: Self.alice).profile == profile, "the page was older")
        #expect(try store.conversation(Self.group)?.group == profile)

        var later = profile
        later.description = "the launch"
        _ = try store.applySync(
            page(
                [
                    event(
                        12, ConversationUpdated(conversationId: Self.group, group: profile, updatedBy: Self.alice).body)
                ],
                conversations: [
                    ConversationSummary(
                        id: Self.group, kind: .group, name: "team", peerId: nil, memberCount: 3, maxSeq: 0, readSeq: 0,
                        lastMessage: nil, createdAt: 0, lastActivityAt: 0, group: later)
                ]))
        #expect(try store.group(Self.group, viewer: Self.alice).profile == later)
    }

    @Test func aConversationTheUserWasRemovedFromIsFilledUpToTheRemovalOnceAndComesBackWhenTheyRejoin() throws {
        let store = try ClientStore(path: nil)
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob)]))
        try store.saveMessages([message(1, in: Self.group), message(3, in: Self.group)])
        let removed = ConversationRemoved(
            conversationId: Self.group, reason: .removed, removedBy: Self.alice, lastSeq: 4)
        try store.applyEvent(event(20, removed.body))
        #expect(try store.hasLeft(Self.group))
        #expect(try store.group(Self.group, viewer: Self.bob).removal == removed)
        #expect(try store.group(Self.group, viewer: Self.bob).membersAreComplete == false)
        #expect(try store.allMessages(in: Self.group).map(\.seq) == [1, 3], "history stays")
        #expect(try store.conversation(Self.group)?.maxSeq == 4, "the notice of the removal is known to exist")
        #expect(try store.conversations().map(\.id) == [Self.group], "still listed")
        #expect(try store.conversationsWithHoles().map { "\($0.id) \($0.upTo)" } == ["\(Self.group) 4"])
        #expect(try store.historyDue(Self.group) == 4)

        try store.settleHistoryDue(Self.group, upTo: 4)
        #expect(try store.conversationsWithHoles().isEmpty, "fetched once, not again")
        _ = try store.applySync(page([], conversations: [groupSummary()]))
        #expect(try store.hasLeft(Self.group), "a summary read before the removal does not undo it")
        _ = try store.applySync(
            page([event(19, ConversationAdded(conversationId: Self.group).body), event(20, removed.body)]))
        #expect(try store.hasLeft(Self.group))
        #expect(try store.conversationsWithHoles().isEmpty, "the removal replayed is not due again")
        _ = try store.applySync(page([event(25, ConversationAdded(conversationId: Self.group).body)]))
        #expect(try !store.hasLeft(Self.group), "added again")
        #expect(try store.historyDue(Self.group) == nil)
        #expect(try store.conversationsWithHoles().map { "\($0.id) \($0.upTo)" } == ["\(Self.group) 4"])

        let again = ConversationRemoved(conversationId: Self.group, reason: .left, removedBy: Self.bob, lastSeq: 9)
        try store.applyEvent(event(30, again.body))
        #expect(try store.historyDue(Self.group) == 9, "a newer removal brings its own history")
        try store.settleHistoryDue(Self.group, upTo: 4)
        #expect(try store.historyDue(Self.group) == 9, "settling an older fetch leaves it due")
    }

    @Test func aStoreThatLeftAGroupBeforeFormerMembersReadTheirHistoryFetchesItOnceWhenMigrated() throws {
        let path = temporaryDirectory() + "/v6.sqlite"
        let old = try DatabaseQueue(path: path)
        try ClientStore.migrator.migrate(old, upTo: "v6 send rejections")
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO conversations (id, kind, name, member_count, max_seq, read_seq, created_at,
                        last_activity_at, membership_seq, removal)
                    VALUES (4, 'group', 'team', 3, 7, 0, 0, 0, 20,
                        '{"conversationId":4,"reason":"removed","removedBy":1}'),
                        (5, 'group', 'crew', 3, 2, 0, 0, 0, 21,
                        '{"conversationId":5,"reason":"left","removedBy":2,"lastSeq":3}')
                    """)
        }
        try old.close()
        let store = try ClientStore(path: path)
        #expect(
            try store.group(Self.group, viewer: Self.bob).removal
                == ConversationRemoved(conversationId: Self.group, reason: .removed, removedBy: Self.alice, lastSeq: 7),
            "a removal without lastSeq reads up to the highest seq known")
        #expect(try store.conversationsWithHoles().map { "\($0.id) \($0.upTo)" } == ["4 7", "5 3"])
        #expect(try store.conversation(ConversationID(5))?.maxSeq == 3)
    }

    @Test func ownersAndAdminsSeeEveryPendingRequestAndOthersOnlyTheirOwn() throws {
        let store = try ClientStore(path: nil)
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob)]))
        let dave = UserID(9)
        func request(_ user: UserID, _ state: JoinRequestState = .pending, at time: Int64) -> JoinRequest {
            JoinRequest(
                conversationId: Self.group, userId: user, inviteCode: "code", message: "hi", state: state,
                createdAt: time)
        }
        try store.applyEvent(event(3, JoinRequestUpdated(request: request(dave, at: 2)).body))
        try store.applyEvent(event(4, JoinRequestUpdated(request: request(Self.carol, at: 1)).body))
        #expect(try store.group(Self.group, viewer: Self.alice).pendingRequests.map(\.userId) == [Self.carol, dave])
        #expect(try store.group(Self.group, viewer: Self.bob).pendingRequests.isEmpty, "bob is a plain member")
        #expect(try store.group(Self.group, viewer: dave).pendingRequests.map(\.userId) == [dave])

        try store.applyEvent(event(6, JoinRequestUpdated(request: request(dave, .rejected, at: 2)).body))
        _ = try store.applySync(page([event(3, JoinRequestUpdated(request: request(dave, at: 2)).body)]))
        #expect(try store.group(Self.group, viewer: Self.alice).pendingRequests.map(\.userId) == [Self.carol])
        try store.savePendingRequests([], of: Self.group)
        #expect(
            try store.group(Self.group, viewer: Self.alice).pendingRequests.map(\.userId) == [Self.carol],
            "the list may have been read before carol's request was filed: sync had not brought it")
        _ = try store.applySync(
            page([
                event(4, JoinRequestUpdated(request: request(Self.carol, at: 1)).body),
                event(6, JoinRequestUpdated(request: request(dave, .rejected, at: 2)).body),
            ]))
        try store.savePendingRequests([], of: Self.group)
        #expect(try store.group(Self.group, viewer: Self.alice).pendingRequests.isEmpty, "resolved meanwhile")
    }

    /// A sync without a cursor starts the event stream afresh: changes before it are never
    /// replayed, so a member list held from before may be stale.
    @Test func aSyncWithoutACursorMarksTheMemberListsHeldIncomplete() throws {
        let store = try ClientStore(path: nil)
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob)]))
        _ = try store.applySync(page([], conversations: [groupSummary(members: 2)]))
        #expect(try store.group(Self.group, viewer: Self.alice).membersAreComplete == false)
        try store.saveDetail(detail([member(Self.alice, .owner), member(Self.bob)]))
        _ = try store.applySync(page([]))
        try store.saveMessages([try notice(1, SystemNotice(.memberJoined, by: Self.alice, about: [Self.carol]))])
        let followed = try store.group(Self.group, viewer: Self.alice)
        #expect(followed.membersAreComplete, "a sync from a cursor replays every change")
        #expect(followed.members.count == 3)
    }

    @Test func aStoreOfTheVersionBeforeGroupsKeepsItsNamesGuardWhenMigrated() throws {
        let path = temporaryDirectory() + "/v4.sqlite"
        let old = try DatabaseQueue(path: path)
        try ClientStore.migrator.migrate(old, upTo: "v4 name seq")
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO conversations (id, kind, name, member_count, max_seq, read_seq, created_at,
                        last_activity_at, name_seq)
                    VALUES (4, 'group', 'renamed', 3, 0, 0, 0, 0, 10)
                    """)
        }
        try old.close()
        let store = try ClientStore(path: path)
        _ = try store.applySync(page([], conversations: [groupSummary(name: "older")]))
        #expect(try store.conversation(Self.group)?.name == "renamed")
    }
}
