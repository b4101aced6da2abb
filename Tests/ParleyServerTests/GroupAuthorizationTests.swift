import Foundation
import ParleyCore
import Testing

/// Every group operation × every relationship to the group, each on a fresh group: the
/// expected answer, and a refusal changes nothing (the group's seq and members stay put).
@Suite struct GroupAuthorizationTests {
    enum Role: String, CaseIterable {
        case owner, admin, member, mutedMember, removedMember, nonMember
    }

    /// The people of one fresh group: each role's user, a plain member others act on, and a
    /// newcomer to invite.
    struct Cast {
        let group: ConversationID
        let users: [Role: TestUser]
        let target: TestUser
        let newcomer: TestUser
    }

    /// An operation and what each role gets: nil for success, else the status and code.
    struct Operation {
        let name: String
        /// Whether success writes a system message.
        let recorded: Bool
        let run: @Sendable (TestAPI, Cast, TestUser) async throws -> Void
        let expected: [Role: (Int, ErrorCode)?]
    }

    static let forbidden = (403, ErrorCode.forbidden)
    static let notAMember = (403, ErrorCode.notAMember)

    /// Owners and admins may; members (muted or not) are forbidden; outsiders are not members.
    static func managersOnly() -> [Role: (Int, ErrorCode)?] {
        [
            .owner: nil, .admin: nil, .member: forbidden, .mutedMember: forbidden, .removedMember: notAMember,
            .nonMember: notAMember,
        ]
    }

    static func ownerOnly() -> [Role: (Int, ErrorCode)?] {
        var expected = managersOnly()
        expected[.admin] = forbidden
        return expected
    }

    static func anyMember() -> [Role: (Int, ErrorCode)?] {
        [
            .owner: nil, .admin: nil, .member: nil, .mutedMember: nil, .removedMember: notAMember,
            .nonMember: notAMember,
        ]
    }

    static let operations: [Operation] = [
        Operation(
            name: "update profile", recorded: true,
            run: { api, cast, user in
                let _: ConversationDetail = try await api.call(
                    .patch, "/v1/conversations/\(cast.group)", UpdateGroupRequest(description: "new rules"),
                    token: user.token)
            }, expected: managersOnly()),
        Operation(
            name: "add a member", recorded: true,
            run: { api, cast, user in
                let _: MembersAdded = try await api.call(
                    .post, "/v1/conversations/\(cast.group)/members", AddMembersRequest(userIds: [cast.newcomer.id]),
                    token: user.token)
            }, expected: anyMember()),
        Operation(
            name: "appoint an admin", recorded: true,
            run: { api, cast, user in
                let _: ConversationDetail = try await api.call(
                    .patch, "/v1/conversations/\(cast.group)/members/\(cast.target.id)",
                    UpdateMemberRequest(role: .admin), token: user.token)
            }, expected: ownerOnly()),
        Operation(
            name: "mute a member", recorded: true,
            run: { api, cast, user in
                let _: ConversationDetail = try await api.call(
                    .patch, "/v1/conversations/\(cast.group)/members/\(cast.target.id)",
                    UpdateMemberRequest(mutedUntil: Limits.mutedUntilLifted), token: user.token)
            }, expected: managersOnly()),
        Operation(
            name: "remove a member", recorded: true,
            run: { api, cast, user in
                let _: EmptyBody = try await api.call(
                    .delete, "/v1/conversations/\(cast.group)/members/\(cast.target.id)", token: user.token)
            }, expected: managersOnly()),
        Operation(
            name: "transfer", recorded: true,
            run: { api, cast, user in
                let _: ConversationDetail = try await api.call(
                    .post, "/v1/conversations/\(cast.group)/transfer", TransferGroupRequest(userId: cast.target.id),
                    token: user.token)
            }, expected: ownerOnly()),
        Operation(
            name: "dissolve", recorded: true,
            run: { api, cast, user in
                let _: ConversationDetail = try await api.call(
                    .post, "/v1/conversations/\(cast.group)/dissolve", token: user.token)
            }, expected: ownerOnly()),
        Operation(
            name: "create an invite link", recorded: false,
            run: { api, cast, user in
                let _: InviteLink = try await api.call(
                    .post, "/v1/conversations/\(cast.group)/links", CreateInviteLinkRequest(), token: user.token)
            }, expected: anyMember()),
        Operation(
            name: "list join requests", recorded: false,
            run: { api, cast, user in
                let _: JoinRequestList = try await api.call(
                    .get, "/v1/conversations/\(cast.group)/join-requests", token: user.token)
            }, expected: managersOnly()),
        Operation(
            name: "send", recorded: true,
            run: { api, cast, user in _ = try await api.sendText("hello", to: cast.group, as: user) },
            expected: {
                var expected = anyMember()
                expected[.mutedMember] = (403, .muted)
                return expected
            }()),
        Operation(
            name: "leave", recorded: true,
            run: { api, cast, user in
                let _: EmptyBody = try await api.call(
                    .delete, "/v1/conversations/\(cast.group)/members/\(user.id)", token: user.token)
            },
            expected: {
                var expected = anyMember()
                expected[.owner] = (409, .ownerMustTransfer)
                return expected
            }()),
        Operation(
            name: "set own nickname", recorded: false,
            run: { api, cast, user in
                let _: ConversationDetail = try await api.call(
                    .patch, "/v1/conversations/\(cast.group)/members/\(user.id)", UpdateMemberRequest(nickname: "me"),
                    token: user.token)
            }, expected: anyMember()),
    ]

    @Test func everyOperationByEveryRoleGetsItsExpectedAnswerAndARefusalChangesNothing() async throws {
        try await withServer { api in
            let users = try await Self.signUpEveryRole(api)
            let target = try await api.signUp("target")
            let newcomer = try await api.signUp("newcomer")
            let owner = users[.owner]!
            for operation in Self.operations {
                for role in Role.allCases {
                    let cast = try await Self.cast(api, users: users, target: target, newcomer: newcomer)
                    let before: ConversationDetail = try await api.call(
                        .get, "/v1/conversations/\(cast.group)", token: owner.token)
                    let failure = try await capture { try await operation.run(api, cast, users[role]!) }
                    let label = "\(operation.name) by \(role)"
                    Self.expectAnswer(failure, operation.expected[role]!, label)
                    let after: ConversationDetail = try await api.call(
                        .get, "/v1/conversations/\(cast.group)", token: owner.token)
                    if failure != nil {
                        #expect(after.conversation.maxSeq == before.conversation.maxSeq, "\(label): nothing recorded")
                        #expect(after.members == before.members, "\(label): members unchanged")
                        #expect(after.conversation.group == before.conversation.group, "\(label): profile unchanged")
                    } else {
                        #expect(
                            after.conversation.maxSeq == before.conversation.maxSeq + (operation.recorded ? 1 : 0),
                            "\(label): \(operation.recorded ? "one system message or message" : "no message")")
                    }
                }
            }
        }
    }

    /// A user for each role, signed up.
    static func signUpEveryRole(_ api: TestAPI) async throws -> [Role: TestUser] {
        var users: [Role: TestUser] = [:]
        for role in Role.allCases { users[role] = try await api.signUp(role.rawValue) }
        return users
    }

    /// Checks an operation's answer: success when `expected` is nil, else its status and code.
    static func expectAnswer(_ failure: APIFailure?, _ expected: (Int, ErrorCode)?, _ label: String) {
        #expect(failure?.status == expected?.0, "\(label): \(failure.map { "\($0)" } ?? "ok")")
        #expect(failure?.error.code == expected?.1, "\(label)")
    }

    /// A group of owner, admin, member, muted member and target; the removed member was in it
    /// and was removed; the non-member never was.
    static func cast(_ api: TestAPI, users: [Role: TestUser], target: TestUser, newcomer: TestUser) async throws
        -> Cast
    {
        let owner = users[.owner]!
        let group = try await api.createGroup(
            "matrix", by: owner,
            with: [users[.admin]!, users[.member]!, users[.mutedMember]!, users[.removedMember]!, target])
        let path = "/v1/conversations/\(group)/members"
        let _: ConversationDetail = try await api.call(
            .patch, "\(path)/\(users[.admin]!.id)", UpdateMemberRequest(role: .admin), token: owner.token)
        let _: ConversationDetail = try await api.call(
            .patch, "\(path)/\(users[.mutedMember]!.id)", UpdateMemberRequest(mutedUntil: Limits.mutedUntilLifted),
            token: owner.token)
        let _: EmptyBody = try await api.call(.delete, "\(path)/\(users[.removedMember]!.id)", token: owner.token)
        return Cast(group: group, users: users, target: target, newcomer: newcomer)
    }
}
