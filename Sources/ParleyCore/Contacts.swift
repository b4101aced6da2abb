public enum FriendRequestTag {}
/// A friend request's id: one per ordered pair of users (a later request from the same
/// user to the same user reuses it).
public typealias FriendRequestID = Identifier<FriendRequestTag>

/// Where a friend request stands: `pending` until answered or expired; `accepted`,
/// `rejected`, `ignored` (the recipient put it aside; the sender still sees `pending` until it
/// expires) or `expired`. Open, so that clients decode values a later server adds.
public struct FriendRequestStatus: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let pending: FriendRequestStatus = "pending"
    public static let accepted: FriendRequestStatus = "accepted"
    public static let rejected: FriendRequestStatus = "rejected"
    public static let ignored: FriendRequestStatus = "ignored"
    public static let expired: FriendRequestStatus = "expired"
}

/// A request from `from` to `to` to become friends, as the viewer sees it.
public struct FriendRequest: Codable, Hashable, Sendable {
    public var id: FriendRequestID
    public var from: User
    public var to: User
    /// What the sender wrote (at most ``ContactLimits/maxRequestMessageLength`` characters;
    /// a merged request carries the latest message).
    public var message: String
    public var status: FriendRequestStatus
    public var createdAt: Int64
    public var updatedAt: Int64
    /// When a pending request lapses, in ms since the epoch.
    public var expiresAt: Int64

    public init(
        id: FriendRequestID, from: User, to: User, message: String, status: FriendRequestStatus, createdAt: Int64,
        updatedAt: Int64, expiresAt: Int64
    ) {
        self.id = id
        self.from = from
        self.to = to
        self.message = message
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/friend-requests`: ask `userId` to become friends.
public struct SendFriendRequest: Codable, Hashable, Sendable, StrictDecodable {
    public var userId: UserID?
    public var message: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case userId, message
    }

    public init(userId: UserID, message: String? = nil) {
        self.userId = userId
        self.message = message
    }
}

/// What the recipient does with a friend request.
public struct FriendRequestAnswer: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let accept: FriendRequestAnswer = "accept"
    public static let reject: FriendRequestAnswer = "reject"
    public static let ignore: FriendRequestAnswer = "ignore"
    public static let known: [FriendRequestAnswer] = [.accept, .reject, .ignore]
}

/// `POST /v1/friend-requests/{requestId}`.
public struct AnswerFriendRequest: Codable, Hashable, Sendable, StrictDecodable {
    public var answer: FriendRequestAnswer?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case answer
    }

    public init(answer: FriendRequestAnswer) { self.answer = answer }
}

/// `GET /v1/friend-requests`: the open requests to and from the user, newest first.
public struct FriendRequestList: Codable, Hashable, Sendable {
    /// Pending requests to the user: at most ``ContactLimits/maxListedIncoming``.
    public var incoming: [FriendRequest]
    /// The user's own open requests (one they ignored shows as pending to them).
    public var outgoing: [FriendRequest]
    /// Requests to the user they ignored, still open (they may still accept or reject
    /// them): at most ``ContactLimits/maxListedIncoming``.
    public var ignored: [FriendRequest]

    public init(incoming: [FriendRequest], outgoing: [FriendRequest], ignored: [FriendRequest] = []) {
        self.incoming = incoming
        self.outgoing = outgoing
        self.ignored = ignored
    }
}

/// A friend, with what the viewer calls them and the viewer's friend groups they are in.
public struct Contact: Codable, Hashable, Sendable {
    public var user: User
    /// The viewer's alias for them; empty when none.
    public var remark: String
    /// When they became friends, in ms since the epoch.
    public var since: Int64
    /// The viewer's friend groups they are in, by id.
    public var groups: [FriendGroupID]

    public init(user: User, remark: String, since: Int64, groups: [FriendGroupID] = []) {
        self.user = user
        self.remark = remark
        self.since = since
        self.groups = groups
    }
}

public enum FriendGroupTag {}
public typealias FriendGroupID = Identifier<FriendGroupTag>

/// One of a user's own friend groups (tags): a friend may be in several.
public struct FriendGroup: Codable, Hashable, Sendable {
    public var id: FriendGroupID
    /// 1 to ``ContactLimits/maxFriendGroupNameLength`` characters, unique among the user's groups.
    public var name: String
    public var createdAt: Int64

    public init(id: FriendGroupID, name: String, createdAt: Int64) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
}

/// `GET /v1/friend-groups`: the user's friend groups in the order they were made.
public struct FriendGroupList: Codable, Hashable, Sendable {
    public var groups: [FriendGroup]
    public init(groups: [FriendGroup]) { self.groups = groups }
}

/// `POST /v1/friend-groups` and `PATCH /v1/friend-groups/{groupId}`.
public struct FriendGroupRequest: Codable, Hashable, Sendable, StrictDecodable {
    public var name: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case name
    }

    public init(name: String) { self.name = name }
}

/// `GET /v1/contacts` (optionally `?group=`): the friends, by user id.
public struct ContactList: Codable, Hashable, Sendable {
    public var contacts: [Contact]
    public init(contacts: [Contact]) { self.contacts = contacts }
}

/// `PATCH /v1/contacts/{userId}`: the alias ("" removes it) and the friend groups the friend
/// is in (the whole set; `[]` takes them out of every group). At least one must be given.
public struct UpdateContactRequest: Codable, Hashable, Sendable, StrictDecodable {
    public var remark: String?
    public var groups: [FriendGroupID]?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case remark, groups
    }

    public init(remark: String? = nil, groups: [FriendGroupID]? = nil) {
        self.remark = remark
        self.groups = groups
    }
}

/// A user the viewer blocked, and since when.
public struct BlockedUser: Codable, Hashable, Sendable {
    public var user: User
    public var since: Int64

    public init(user: User, since: Int64) {
        self.user = user
        self.since = since
    }
}

/// `GET /v1/blocks`: everyone the user blocked, most recent first.
public struct BlockList: Codable, Hashable, Sendable {
    public var blocked: [BlockedUser]
    public init(blocked: [BlockedUser]) { self.blocked = blocked }
}

/// Someone the user may know: not a friend, not blocked either way, who has not rejected the
/// user and takes friend requests, with what they have in common.
public struct Recommendation: Codable, Hashable, Sendable {
    public var user: User
    /// Friends of the user who are their friends too.
    public var mutualFriends: Int
    /// Groups both are in.
    public var sharedGroups: Int
    /// Why, in English: "3 mutual friends", "1 shared group", "2 mutual friends, 1 shared group".
    public var reason: String

    public init(user: User, mutualFriends: Int, sharedGroups: Int) {
        self.user = user
        self.mutualFriends = mutualFriends
        self.sharedGroups = sharedGroups
        func counted(_ count: Int, _ noun: String) -> String? {
            count == 0 ? nil : "\(count) \(noun)\(count == 1 ? "" : "s")"
        }
        reason = [counted(mutualFriends, "mutual friend"), counted(sharedGroups, "shared group")]
            .compactMap { $0 }.joined(separator: ", ")
    }
}

/// `GET /v1/contacts/recommendations`: the people the user may know, most mutual friends
/// first, then most shared groups.
public struct RecommendationList: Codable, Hashable, Sendable {
    public var recommendations: [Recommendation]
    public init(recommendations: [Recommendation]) { self.recommendations = recommendations }
}

/// The limits of the contact features, the same for server and clients.
public enum ContactLimits {
    /// Friends per user; a request that would pass it gets `too_many_friends`.
    public static let maxFriends = 5_000
    /// Pending requests a user may have sent (`too_many_pending_requests`).
    public static let maxPendingOutgoing = 100
    /// Incoming pending requests `GET /v1/friend-requests` lists (the newest).
    public static let maxListedIncoming = 200
    /// Users one may block (`too_many_blocks`).
    public static let maxBlocks = 5_000
    /// Characters of a request's message and of a remark.
    public static let maxRequestMessageLength = 200
    public static let maxRemarkLength = 64
    /// Friend groups per user (`too_many_friend_groups`), and the characters of a name.
    public static let maxFriendGroups = 50
    public static let maxFriendGroupNameLength = 32
    /// Recommendations per answer: at most, and when the request does not say.
    public static let maxRecommendations = 50
    public static let defaultRecommendations = 20
    /// How long a request stays pending unless the server is told otherwise
    /// (`--friend-request-ttl`): 30 days.
    public static let defaultRequestTTLMs: Int64 = 30 * 24 * 3_600 * 1_000
}
