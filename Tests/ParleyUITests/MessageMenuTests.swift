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
}
