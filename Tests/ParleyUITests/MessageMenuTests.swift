import ParleyCore
import ParleyKit
import ParleyUI
import Testing

/// Which built-in actions the long-press menu offers, by the server's rules for recall and
/// edit, so that it never offers what the server would refuse.
@Suite struct MessageMenuTests {
    static let (owner, admin, otherAdmin, member) = (UserID(1), UserID(2), UserID(3), UserID(4))
    static let roles: [UserID: MemberRole] = [owner: .owner, admin: .admin, otherAdmin: .admin, member: .member]
    static let windows = MessageWindows(recallMs: 120_000, editMs: 900_000)

    /// A committed text sent at minute 0 by `sender`.
    func sent(by sender: UserID, kind: MessageKind = .text) -> ChatItem {
        var message = item(1, from: sender.rawValue, at: 0, kind: kind, delivery: .sent)
        message.messageId = MessageID(11)
        return message
    }

    func ids(_ item: ChatItem, viewer: UserID, at seconds: Int64, roles: [UserID: MemberRole]? = nil) -> [String] {
        let permissions = MessagePermissions(viewerId: viewer, roles: roles, windows: Self.windows, now: seconds * 1000)
        return MessageMenu.builtInActions(for: item, permissions: permissions).map(\.id)
    }

    @Test func ownMessagesAreEditedAndRecalledOnlyWithinTheirWindows() {
        let mine = sent(by: Self.member)
        #expect(ids(mine, viewer: Self.member, at: 60) == ["copy", "reply", "forward", "edit", "recall", "delete"])
        #expect(ids(mine, viewer: Self.member, at: 600) == ["copy", "reply", "forward", "edit", "delete"])
        #expect(ids(mine, viewer: Self.member, at: 1_000) == ["copy", "reply", "forward", "delete"])
        let picture = sent(by: Self.member, kind: .image)
        #expect(
            ids(picture, viewer: Self.member, at: 60) == ["reply", "forward", "recall", "delete"], "no text to edit")
        #expect(ids(mine, viewer: Self.admin, at: 60) == ["copy", "reply", "forward", "delete"], "direct: own only")
    }

    @Test func ownersRecallAnyMessageAndAdminsOnlyTheirOwnAndPlainMembers() {
        let late: Int64 = 86_400
        #expect(ids(sent(by: Self.admin), viewer: Self.owner, at: late, roles: Self.roles).contains("recall"))
        #expect(ids(sent(by: Self.member), viewer: Self.admin, at: late, roles: Self.roles).contains("recall"))
        #expect(ids(sent(by: Self.admin), viewer: Self.admin, at: late, roles: Self.roles).contains("recall"))
        #expect(!ids(sent(by: Self.owner), viewer: Self.admin, at: 0, roles: Self.roles).contains("recall"))
        #expect(!ids(sent(by: Self.otherAdmin), viewer: Self.admin, at: 0, roles: Self.roles).contains("recall"))
        #expect(!ids(sent(by: Self.owner), viewer: Self.member, at: 0, roles: Self.roles).contains("recall"))
        #expect(
            !ids(sent(by: Self.member), viewer: Self.owner, at: 0, roles: Self.roles).contains("edit"),
            "only the sender edits")
    }

    @Test func recalledDeletedSystemAndUnsentItemsOfferNoRecallEditReplyOrForward() {
        var recalled = sent(by: Self.member)
        recalled.kind = .recalled
        recalled.content = ["recalledBy": 4]
        var notice = sent(by: Self.owner, kind: .system)
        notice.content = ["event": "member.left", "actorId": 1]
        var deleted = sent(by: Self.member)
        deleted.kind = .deleted
        deleted.content = [:]
        var sending = sent(by: Self.member)
        sending.seq = nil
        sending.delivery = .sending
        for unavailable in [recalled, notice, deleted] {
            #expect(ids(unavailable, viewer: Self.owner, at: 1, roles: Self.roles) == ["delete"], "\(unavailable.kind)")
        }
        #expect(ids(sending, viewer: Self.member, at: 1) == ["copy", "delete"])
    }

    @Test func anAdminRecallsTheMessagesOfSomeoneWhoLeftTheGroup() {
        let gone = UserID(9)
        #expect(ids(sent(by: gone), viewer: Self.admin, at: 86_400, roles: Self.roles).contains("recall"))
        #expect(ids(sent(by: gone), viewer: Self.owner, at: 86_400, roles: Self.roles).contains("recall"))
        #expect(!ids(sent(by: gone), viewer: Self.member, at: 0, roles: Self.roles).contains("recall"))
    }

    @Test func aMutedUserEditsNothingAndADissolvedGroupOffersNoEditOrRecall() {
        func ids(
            _ item: ChatItem, viewer: UserID, mutedUntil: Int64? = nil, muteAll: Bool = false,
            dissolved: Bool = false
        ) -> [String] {
            let permissions = MessagePermissions(
                viewerId: viewer, roles: Self.roles, windows: Self.windows, now: 60_000, viewerMutedUntil: mutedUntil,
                muteAll: muteAll, isDissolved: dissolved)
            return MessageMenu.builtInActions(for: item, permissions: permissions).map(\.id)
        }
        let mine = sent(by: Self.member)
        #expect(
            ids(mine, viewer: Self.member, mutedUntil: 3_600_000) == ["copy", "reply", "forward", "recall", "delete"])
        #expect(ids(mine, viewer: Self.member, mutedUntil: 30_000).contains("edit"), "a mute that ended")
        #expect(!ids(mine, viewer: Self.member, muteAll: true).contains("edit"), "the group muted for members")
        #expect(ids(sent(by: Self.admin), viewer: Self.admin, muteAll: true).contains("edit"), "admins still send")
        for viewer in [Self.owner, Self.admin, Self.member] {
            let actions = ids(sent(by: viewer), viewer: viewer, dissolved: true)
            #expect(actions == ["copy", "reply", "forward", "delete"], "\(viewer)")
        }
        #expect(!ids(sent(by: Self.member), viewer: Self.owner, dissolved: true).contains("recall"))
    }

    @Test func permissionsReadFromTheGroupAsTheDeviceKnowsIt() {
        let members = Self.roles.map { id, role in
            Member(userId: id, role: role, readSeq: 0, joinedAt: 0, mutedUntil: id == Self.member ? 3_600_000 : nil)
        }
        let group = GroupSnapshot(
            conversationId: ConversationID(7), profile: GroupProfile(name: "g", ownerId: Self.owner, dissolvedAt: nil),
            members: members, membersAreComplete: true, pendingRequests: [], removal: nil)
        let muted = MessagePermissions(viewerId: Self.member, group: group, windows: Self.windows, now: 60_000)
        #expect(muted.roles?[Self.admin] == .admin)
        #expect(!muted.mayEdit(sent(by: Self.member)))
        #expect(muted.mayRecall(sent(by: Self.member)))
        var dissolved = group
        dissolved.profile?.dissolvedAt = 1
        let owner = MessagePermissions(viewerId: Self.owner, group: dissolved, windows: Self.windows, now: 60_000)
        #expect(!owner.mayRecall(sent(by: Self.member)))
    }
}
