import Foundation
import Hummingbird
import ParleyCore
import Testing

/// Every contact operation × every relationship of the subject to the actor (issue 11,
/// item 7): the expected answer, and a refusal changes nothing the actor or the subject sees
/// (friends, requests, blocks and the subject's conversations). Serialized: each case runs a
/// server of its own, and nine at once would take a large share of a test PostgreSQL's
/// connections.
@Suite(.serialized) struct ContactAuthorizationTests {
    /// Who the subject is to the actor.
    enum Relation: String, CaseIterable, Sendable {
        case selfRelation = "self"
        case friend, stranger
        /// The actor blocked the subject.
        case blocked
        /// The subject blocked the actor.
        case blocker
    }

    struct Operation: Sendable {
        let name: String
        let run: @Sendable (TestAPI, _ actor: TestUser, _ subject: TestUser) async throws -> Void
        /// Nil: allowed.
        let expected: [Relation: (Int, ErrorCode)?]
    }

    static let blocked = (403, ErrorCode.blocked)
    static let notFriend = (404, ErrorCode.contactNotFound)
    static let noUser = (404, ErrorCode.userNotFound)

    static let operations: [Operation] = [
        Operation(
            name: "send a friend request",
            run: { api, actor, subject in _ = try await api.request(actor, befriends: subject, "hello") },
            expected: [
                .selfRelation: (400, .cannotAddSelf), .friend: (409, .alreadyFriends), .stranger: nil,
                .blocked: blocked, .blocker: blocked,
            ]),
        Operation(
            name: "send a direct message",
            run: { api, actor, subject in
                let _: SendMessageResponse = try await api.call(
                    .post, "/v1/messages",
                    SendMessageRequest(
                        toUserId: subject.id, clientMsgId: UUID().uuidString, kind: .text, content: ["text": "hi"]),
                    token: actor.token)
            },
            expected: [
                .selfRelation: (400, .invalidField), .friend: nil, .stranger: nil, .blocked: blocked,
                .blocker: blocked,
            ]),
        Operation(
            name: "look up by username",
            run: { api, actor, subject in
                let _: User = try await api.call(
                    .get, "/v1/users/lookup?username=\(subject.username)", token: actor.token)
            },
            expected: [.selfRelation: nil, .friend: nil, .stranger: nil, .blocked: noUser, .blocker: noUser]),
        Operation(
            name: "search by nickname",
            run: { api, actor, subject in
                let page: UserSearchPage = try await api.call(
                    .get, "/v1/users/search?q=\(subject.username)", token: actor.token)
                guard page.users.contains(where: { $0.id == subject.id }) else {
                    throw APIFailure(status: 404, error: ParleyError(.userNotFound, "not in the results"))
                }
            },
            expected: [.selfRelation: noUser, .friend: nil, .stranger: nil, .blocked: noUser, .blocker: noUser]),
        Operation(
            name: "set a remark",
            run: { api, actor, subject in
                let _: Contact = try await api.call(
                    .patch, "/v1/contacts/\(subject.id)", UpdateContactRequest(remark: "pal"), token: actor.token)
            },
            expected: [
                .selfRelation: notFriend, .friend: nil, .stranger: notFriend, .blocked: notFriend, .blocker: notFriend,
            ]),
        Operation(
            name: "put in a friend group",
            run: { api, actor, subject in
                let group: FriendGroup = try await api.call(
                    .post, "/v1/friend-groups", FriendGroupRequest(name: UUID().uuidString.prefix(8).description),
                    token: actor.token)
                let _: Contact = try await api.call(
                    .patch, "/v1/contacts/\(subject.id)", UpdateContactRequest(groups: [group.id]), token: actor.token)
            },
            expected: [
                .selfRelation: notFriend, .friend: nil, .stranger: notFriend, .blocked: notFriend, .blocker: notFriend,
            ]),
        Operation(
            name: "remove a friend",
            run: { api, actor, subject in
                let _: EmptyBody = try await api.call(.delete, "/v1/contacts/\(subject.id)", token: actor.token)
            },
            expected: [
                .selfRelation: notFriend, .friend: nil, .stranger: notFriend, .blocked: notFriend, .blocker: notFriend,
            ]),
        Operation(
            name: "block",
            run: { api, actor, subject in
                let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(subject.id)", token: actor.token)
            },
            expected: [.selfRelation: (400, .invalidField), .friend: nil, .stranger: nil, .blocked: nil, .blocker: nil]
        ),
        Operation(
            name: "unblock",
            run: { api, actor, subject in
                let _: EmptyBody = try await api.call(.delete, "/v1/blocks/\(subject.id)", token: actor.token)
            },
            expected: [.selfRelation: nil, .friend: nil, .stranger: nil, .blocked: nil, .blocker: nil]),
    ]

    /// What a refusal must leave as it was: both users' friends, requests and blocks, and
    /// the subject's conversations.
    struct Footprint: Equatable {
        var friends: [[UserID]]
        /// Every open request each way, whole (status, message, times).
        var requests: [FriendRequestList]
        var blocks: [[UserID]]
        var subjectConversations: [ConversationID]

        static func of(_ api: TestAPI, _ users: [TestUser], subject: TestUser) async throws -> Footprint {
            var footprint = Footprint(friends: [], requests: [], blocks: [], subjectConversations: [])
            for user in users {
                footprint.friends.append(try await api.contacts(of: user).map(\.user.id))
                let requests: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: user.token)
                footprint.requests.append(requests)
                let blocks: BlockList = try await api.call(.get, "/v1/blocks", token: user.token)
                footprint.blocks.append(blocks.blocked.map(\.user.id))
            }
            let list: SyncResponse = try await api.call(.get, "/v1/sync", token: subject.token)
            footprint.subjectConversations = list.conversations.map(\.id)
            return footprint
        }
    }

    @Test(arguments: operations.map(\.name))
    func eachRelationGetsTheExpectedAnswer(_ name: String) async throws {
        let operation = Self.operations.first { $0.name == name }!
        try await withServer { api in
            let actor = try await api.signUp("actor")
            var subjects: [Relation: TestUser] = [.selfRelation: actor]
            for relation in Relation.allCases where relation != .selfRelation {
                subjects[relation] = try await api.signUp(relation.rawValue)
            }
            try await api.befriend(actor, subjects[.friend]!)
            let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(subjects[.blocked]!.id)", token: actor.token)
            let _: BlockedUser = try await api.call(
                .put, "/v1/blocks/\(actor.id)", token: subjects[.blocker]!.token)
            for relation in Relation.allCases {
                let subject = subjects[relation]!
                let before = try await Footprint.of(api, [actor, subject], subject: subject)
                let expected = operation.expected[relation]!
                do {
                    try await operation.run(api, actor, subject)
                    #expect(expected == nil, "\(name) on \(relation.rawValue) succeeded")
                } catch let failure as APIFailure {
                    #expect(
                        failure.status == expected?.0 && failure.error.code == expected?.1,
                        "\(name) on \(relation.rawValue): \(failure)")
                    let after = try await Footprint.of(api, [actor, subject], subject: subject)
                    #expect(after == before, "a refused \(name) on \(relation.rawValue) changed something")
                }
            }
        }
    }
}
