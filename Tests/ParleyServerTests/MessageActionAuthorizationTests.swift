import Foundation
import ParleyCore
import Testing

/// Every message action × every relationship to the group, each on a fresh group: the
/// expected answer, and a refusal changes nothing (the group's messages, as a member who
/// takes no part reads them, stay exactly as they were).
@Suite struct MessageActionAuthorizationTests {
    typealias Role = GroupAuthorizationTests.Role

    /// One fresh group: each role's user, a plain member whose messages others act on, and
    /// the message each of them sent (all before the admin was appointed, the muted member
    /// muted and the removed member removed).
    struct Cast {
        let group: ConversationID
        let target: TestUser
        let sent: [UserID: Message]

        /// The actor's own message; one they cannot have (a non-member's) is the target's.
        func own(_ user: TestUser) -> Message { sent[user.id] ?? sent[target.id]! }
    }

    struct Operation {
        let name: String
        /// Whether success adds a message to the group.
        let adds: Bool
        let run: @Sendable (TestAPI, Cast, TestUser, [Role: TestUser]) async throws -> Void
        let expected: [Role: (Int, ErrorCode)?]
    }

    static let notAMember = (403, ErrorCode.notAMember)
    static let notFound = (404, ErrorCode.messageNotFound)
    static let notSender = (403, ErrorCode.notMessageSender)
    static let muted = (403, ErrorCode.muted)

    static func expect(
        owner: (Int, ErrorCode)? = nil, admin: (Int, ErrorCode)? = nil, member: (Int, ErrorCode)? = nil,
        mutedMember: (Int, ErrorCode)? = nil, removedMember: (Int, ErrorCode)? = notAMember,
        nonMember: (Int, ErrorCode)? = notAMember
    ) -> [Role: (Int, ErrorCode)?] {
        [
            .owner: owner, .admin: admin, .member: member, .mutedMember: mutedMember, .removedMember: removedMember,
            .nonMember: nonMember,
        ]
    }

    static func recall(_ api: TestAPI, _ message: Message, by user: TestUser) async throws {
        let _: Message = try await api.call(.post, "/v1/messages/\(message.id)/recall", token: user.token)
    }

    static func edit(_ api: TestAPI, _ message: Message, by user: TestUser) async throws {
        let _: Message = try await api.call(
            .patch, "/v1/messages/\(message.id)", EditMessageRequest(text: "edited"), token: user.token)
    }

    static func send(_ api: TestAPI, _ kind: MessageKind, _ content: JSONValue, in cast: Cast, by user: TestUser)
        async throws
    {
        let _: SendMessageResponse = try await api.call(
            .post, "/v1/messages",
            SendMessageRequest(
                conversationId: cast.group, clientMsgId: UUID().uuidString, kind: kind, content: content),
            token: user.token)
    }

    static let operations: [Operation] = [
        Operation(
            name: "recall own message", adds: false,
            run: { api, cast, user, _ in try await recall(api, cast.own(user), by: user) },
            expected: expect(nonMember: notFound)),
        Operation(
            name: "recall a member's message", adds: false,
            run: { api, cast, user, _ in try await recall(api, cast.sent[cast.target.id]!, by: user) },
            expected: expect(member: notSender, mutedMember: notSender, nonMember: notFound)),
        Operation(
            name: "recall the owner's message", adds: false,
            run: { api, cast, user, users in try await recall(api, cast.sent[users[.owner]!.id]!, by: user) },
            expected: expect(admin: notSender, member: notSender, mutedMember: notSender, nonMember: notFound)),
        Operation(
            name: "edit own message", adds: false,
            run: { api, cast, user, _ in try await edit(api, cast.own(user), by: user) },
            expected: expect(mutedMember: muted, nonMember: notFound)),
        Operation(
            name: "edit a member's message", adds: false,
            run: { api, cast, user, _ in try await edit(api, cast.sent[cast.target.id]!, by: user) },
            expected: expect(
                owner: notSender, admin: notSender, member: notSender, mutedMember: notSender, nonMember: notFound)),
        Operation(
            name: "reply to a member's message", adds: true,
            run: { api, cast, user, _ in
                let target = cast.sent[cast.target.id]!
                try await send(
                    api, .reply, ["text": "re", "replyTo": .number(.integer(target.id.rawValue))], in: cast, by: user)
            },
            expected: expect(mutedMember: muted)),
        Operation(
            name: "forward a member's message into the group", adds: true,
            run: { api, cast, user, _ in
                let _: SendMessageResponse = try await api.call(
                    .post, "/v1/messages/forward",
                    ForwardMessageRequest(
                        messageId: cast.sent[cast.target.id]!.id, conversationId: cast.group,
                        clientMsgId: UUID().uuidString), token: user.token)
            },
            expected: expect(mutedMember: muted, nonMember: notFound)),
        Operation(
            name: "mention everyone", adds: true,
            run: { api, cast, user, _ in
                try await send(api, .text, ["text": "@all", "mentionAll": true], in: cast, by: user)
            },
            expected: expect(
                member: (403, .mentionAllNotAllowed), mutedMember: muted)),
        Operation(
            name: "delete a message for me", adds: false,
            run: { api, cast, user, _ in
                let _: MessagesDeleted = try await api.call(
                    .post, "/v1/conversations/\(cast.group)/messages/delete",
                    DeleteMessagesRequest(seqs: [cast.sent[cast.target.id]!.seq]), token: user.token)
            },
            // A former member may still tidy the history they can read.
            expected: expect(removedMember: nil)),
        Operation(
            name: "clear history for me", adds: false,
            run: { api, cast, user, _ in
                let _: ConversationSummary = try await api.call(
                    .patch, "/v1/conversations/\(cast.group)/settings", UpdateSettingsRequest(clearUpToSeq: 2),
                    token: user.token)
            }, expected: expect()),
        Operation(
            name: "mark delivered", adds: false,
            run: { api, cast, user, _ in
                let _: ReadReceipt = try await api.call(
                    .post, "/v1/conversations/\(cast.group)/delivered", ReadRequest(seq: 1), token: user.token)
            }, expected: expect()),
        Operation(
            name: "list receipts", adds: false,
            run: { api, cast, user, _ in
                let _: ReceiptList = try await api.call(
                    .get, "/v1/conversations/\(cast.group)/receipts", token: user.token)
            }, expected: expect()),
        Operation(
            name: "list a message's readers", adds: false,
            run: { api, cast, user, _ in
                let _: MessageReaders = try await api.call(
                    .get, "/v1/conversations/\(cast.group)/messages/\(cast.sent[cast.target.id]!.seq)/readers",
                    token: user.token)
            }, expected: expect()),
    ]

    @Test func everyActionByEveryRoleGetsItsExpectedAnswerAndARefusalChangesNothing() async throws {
        try await withServer { api in
            let users = try await GroupAuthorizationTests.signUpEveryRole(api)
            let target = try await api.signUp("target")
            for operation in Self.operations {
                for role in Role.allCases {
                    let cast = try await Self.cast(api, users: users, target: target)
                    let before = try await api.fullHistory(of: cast.group, as: target)
                    let failure = try await capture { try await operation.run(api, cast, users[role]!, users) }
                    let label = "\(operation.name) by \(role)"
                    GroupAuthorizationTests.expectAnswer(failure, operation.expected[role]!, label)
                    let after = try await api.fullHistory(of: cast.group, as: target)
                    if failure != nil || !operation.adds {
                        #expect(after.count == before.count, "\(label): no message added")
                    } else {
                        #expect(after.count == before.count + 1, "\(label): one message added")
                    }
                    if failure != nil { #expect(after == before, "\(label): nothing changed") }
                }
            }
        }
    }

    static func cast(_ api: TestAPI, users: [Role: TestUser], target: TestUser) async throws -> Cast {
        let owner = users[.owner]!
        let senders = [owner, users[.admin]!, users[.member]!, users[.mutedMember]!, users[.removedMember]!, target]
        let group = try await api.createGroup("matrix", by: owner, with: Array(senders.dropFirst()))
        var sent: [UserID: Message] = [:]
        for user in senders {
            sent[user.id] = try await api.sendText("from \(user.username)", to: group, as: user).message
        }
        let path = "/v1/conversations/\(group)/members"
        let _: ConversationDetail = try await api.call(
            .patch, "\(path)/\(users[.admin]!.id)", UpdateMemberRequest(role: .admin), token: owner.token)
        let _: ConversationDetail = try await api.call(
            .patch, "\(path)/\(users[.mutedMember]!.id)", UpdateMemberRequest(mutedUntil: Limits.mutedUntilLifted),
            token: owner.token)
        let _: EmptyBody = try await api.call(.delete, "\(path)/\(users[.removedMember]!.id)", token: owner.token)
        return Cast(group: group, target: target, sent: sent)
    }
}
