import Foundation

/// Who may find a user by each way of looking them up. Someone a setting hides the user
/// from gets the answer given for no such user (`user_not_found`), so that a hidden
/// account is not revealed; the user always finds themselves.
public struct PrivacySettings: Codable, Hashable, Sendable {
    /// `GET /v1/users/lookup?username=` and `GET /v1/users/by-username/{username}`.
    public var findByUsername: Discoverability
    /// `GET /v1/users/lookup?email=`.
    public var findByEmail: Discoverability
    /// `GET /v1/users/lookup?phone=`.
    public var findByPhone: Discoverability
    /// `GET /v1/users/search?q=` (nicknames).
    public var findByNickname: Discoverability
    /// What a friend request to the user does: befriend at once, wait for their answer, or
    /// nothing (refused).
    public var addMe: AddPolicy
    /// Who may send them direct messages: everyone, or only their friends.
    public var messageFrom: MessagePolicy
    /// Who sees whether they are online and when they were last seen.
    public var presence: PresenceVisibility

    public init(
        findByUsername: Discoverability = .everyone, findByEmail: Discoverability = .everyone,
        findByPhone: Discoverability = .everyone, findByNickname: Discoverability = .everyone,
        addMe: AddPolicy = .approval, messageFrom: MessagePolicy = .everyone,
        presence: PresenceVisibility = .everyone
    ) {
        self.findByUsername = findByUsername
        self.findByEmail = findByEmail
        self.findByPhone = findByPhone
        self.findByNickname = findByNickname
        self.addMe = addMe
        self.messageFrom = messageFrom
        self.presence = presence
    }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case findByUsername, findByEmail, findByPhone, findByNickname, addMe, messageFrom, presence
    }

    /// Settings a server or a stored account left out take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self.defaults
        self.init(
            findByUsername: try container.decodeIfPresent(Discoverability.self, forKey: .findByUsername)
                ?? defaults.findByUsername,
            findByEmail: try container.decodeIfPresent(Discoverability.self, forKey: .findByEmail)
                ?? defaults.findByEmail,
            findByPhone: try container.decodeIfPresent(Discoverability.self, forKey: .findByPhone)
                ?? defaults.findByPhone,
            findByNickname: try container.decodeIfPresent(Discoverability.self, forKey: .findByNickname)
                ?? defaults.findByNickname,
            addMe: try container.decodeIfPresent(AddPolicy.self, forKey: .addMe) ?? defaults.addMe,
            messageFrom: try container.decodeIfPresent(MessagePolicy.self, forKey: .messageFrom)
                ?? defaults.messageFrom,
            presence: try container.decodeIfPresent(PresenceVisibility.self, forKey: .presence) ?? defaults.presence)
    }

    /// What a new account starts with: findable every way, friend requests need approval,
    /// direct messages from everyone, presence seen by everyone.
    public static let defaults = PrivacySettings()

    /// These settings with `update` applied.
    public func updated(by update: UpdatePrivacyRequest) -> PrivacySettings {
        PrivacySettings(
            findByUsername: update.findByUsername ?? findByUsername, findByEmail: update.findByEmail ?? findByEmail,
            findByPhone: update.findByPhone ?? findByPhone, findByNickname: update.findByNickname ?? findByNickname,
            addMe: update.addMe ?? addMe, messageFrom: update.messageFrom ?? messageFrom,
            presence: update.presence ?? presence)
    }
}

/// What a friend request does to a user: `anyone` befriends at once, `approval` waits for
/// their answer, `nobody` is refused (`not_accepting_requests`). Open: a value this version
/// does not know is treated as `approval` by clients; a server accepts only ``known`` values.
public struct AddPolicy: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let anyone: AddPolicy = "anyone"
    public static let approval: AddPolicy = "approval"
    public static let nobody: AddPolicy = "nobody"
    public static let known: [AddPolicy] = [.anyone, .approval, .nobody]
}

/// Who may send a user direct messages: `everyone` (the default, as team messengers expect)
/// or only their `friends` (others get `not_a_friend`). Group messages are not affected.
public struct MessagePolicy: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let everyone: MessagePolicy = "everyone"
    public static let friends: MessagePolicy = "friends"
    public static let known: [MessagePolicy] = [.everyone, .friends]
}

/// Whether a way of looking a user up finds them: `everyone` or `nobody`. Open, so that a
/// client decodes an account whose settings hold a value a later server adds (and treats
/// it as `nobody`, see ``findsEveryone``); a server accepts only ``known`` values.
public struct Discoverability: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let everyone: Discoverability = "everyone"
    public static let nobody: Discoverability = "nobody"
    /// The values this version understands and a server accepts.
    public static let known: [Discoverability] = [.everyone, .nobody]

    /// Whether it lets everyone find the user; any value but `everyone` hides them.
    public var findsEveryone: Bool { self == .everyone }
}

/// `PATCH /v1/me/privacy`: the settings given change, the others stay.
public struct UpdatePrivacyRequest: Codable, Hashable, Sendable, StrictDecodable {
    public var findByUsername: Discoverability?
    public var findByEmail: Discoverability?
    public var findByPhone: Discoverability?
    public var findByNickname: Discoverability?
    public var addMe: AddPolicy?
    public var messageFrom: MessagePolicy?
    public var presence: PresenceVisibility?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case findByUsername, findByEmail, findByPhone, findByNickname, addMe, messageFrom, presence
    }

    public init(
        findByUsername: Discoverability? = nil, findByEmail: Discoverability? = nil,
        findByPhone: Discoverability? = nil, findByNickname: Discoverability? = nil, addMe: AddPolicy? = nil,
        messageFrom: MessagePolicy? = nil, presence: PresenceVisibility? = nil
    ) {
        self.findByUsername = findByUsername
        self.findByEmail = findByEmail
        self.findByPhone = findByPhone
        self.findByNickname = findByNickname
        self.addMe = addMe
        self.messageFrom = messageFrom
        self.presence = presence
    }
}

/// `GET /v1/users/search`: one page of users whose nickname holds the query, best matches
/// first (the whole nickname, then its start, then anywhere); `nextCursor` is absent on the
/// last page.
public struct UserSearchPage: Codable, Hashable, Sendable {
    public var users: [User]
    public var nextCursor: String?

    public init(users: [User], nextCursor: String?) {
        self.users = users
        self.nextCursor = nextCursor
    }
}

/// The rules of finding people, shared by server and clients.
public enum FindingRules {
    /// The longest nickname query, in characters.
    public static let maxQueryLength = 32
    /// Results per search page: at most, and when the request does not say.
    public static let maxSearchLimit = 50
    public static let defaultSearchLimit = 20
    /// How deep paging goes: results past this many are not served (search more precisely).
    public static let maxSearchDepth = 10_000
}
