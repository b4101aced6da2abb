/// A user as others see them. The optional details are absent until the user gives them.
public struct User: Codable, Hashable, Sendable {
    public var id: UserID
    public var username: String
    public var nickname: String
    public var signature: String
    /// The file id of their avatar image.
    public var avatar: String?
    public var gender: Gender?
    /// `YYYY-MM-DD`.
    public var birthday: String?
    /// An ISO 3166-1 alpha-2 country code, optionally with an ISO 3166-2 subdivision (`CN-GD`).
    public var region: String?
    public var createdAt: Int64
    /// True once the account was deleted: its messages stay, under the name "Deleted account"
    /// (`username` is then `deleted-<id>`, which no one can register). Absent otherwise.
    public var deleted: Bool?

    public init(
        id: UserID, username: String, nickname: String, signature: String, avatar: String? = nil,
        gender: Gender? = nil, birthday: String? = nil, region: String? = nil, createdAt: Int64, deleted: Bool? = nil
    ) {
        self.deleted = deleted
        self.id = id
        self.username = username
        self.nickname = nickname
        self.signature = signature
        self.avatar = avatar
        self.gender = gender
        self.birthday = birthday
        self.region = region
        self.createdAt = createdAt
    }
}

/// What a user says of their gender, if anything: `female`, `male` or `other`.
public struct Gender: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let female: Gender = "female"
    public static let male: Gender = "male"
    public static let other: Gender = "other"
    /// The values a server accepts.
    public static let known: [Gender] = [.female, .male, .other]
}

/// The signed-in user's own account, with the private fields only they see.
public struct Account: Codable, Hashable, Sendable {
    public var user: User
    public var email: String?
    public var phone: String?
    /// Who may find them, and how (absent from servers older than it).
    public var privacy: PrivacySettings?
    /// Whether a code sent to the email came back (absent from servers older than it).
    public var emailVerified: Bool?
    /// Whether a code sent to the phone came back (absent from servers older than it).
    public var phoneVerified: Bool?

    public init(
        user: User, email: String?, phone: String?, privacy: PrivacySettings? = nil, emailVerified: Bool? = nil,
        phoneVerified: Bool? = nil
    ) {
        self.user = user
        self.email = email
        self.phone = phone
        self.privacy = privacy
        self.emailVerified = emailVerified
        self.phoneVerified = phoneVerified
    }
}

/// `POST /v1/accounts`.
public struct RegisterRequest: Codable, Sendable, StrictDecodable {
    public var username: String
    public var password: String
    public var email: String?
    public var phone: String?
    public var nickname: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case username, password, email, phone, nickname
    }

    public init(username: String, password: String, email: String? = nil, phone: String? = nil, nickname: String? = nil)
    {
        self.username = username
        self.password = password
        self.email = email
        self.phone = phone
        self.nickname = nickname
    }
}

/// `POST /v1/sessions`: log in with a username, email or phone and a password.
public struct LoginRequest: Codable, Sendable, StrictDecodable {
    public var login: String
    public var password: String
    public var device: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case login, password, device
    }

    public init(login: String, password: String, device: String? = nil) {
        self.login = login
        self.password = password
        self.device = device
    }
}

/// `POST /v1/me/password`: the current password and the new one.
public struct ChangePasswordRequest: Codable, Sendable, StrictDecodable {
    public var currentPassword: String
    public var newPassword: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case currentPassword, newPassword
    }

    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }
}

/// `POST /v1/me/delete`: the password (and, with two-factor login on, a code from the app or
/// a recovery code) confirms it.
public struct DeleteAccountRequest: Codable, Sendable, StrictDecodable {
    public var password: String
    public var code: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case password, code
    }

    public init(password: String, code: String? = nil) {
        self.password = password
        self.code = code
    }
}

/// `POST /v1/sessions/refresh`.
public struct RefreshRequest: Codable, Sendable, StrictDecodable {
    public var refreshToken: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case refreshToken
    }

    public init(refreshToken: String) { self.refreshToken = refreshToken }
}

/// The user's sessions, newest first (`GET /v1/sessions`).
public struct SessionList: Codable, Hashable, Sendable {
    public var sessions: [SessionInfo]

    public init(sessions: [SessionInfo]) { self.sessions = sessions }
}

/// A device's session: when and from where it logged in, and whether it is still valid.
public struct SessionInfo: Codable, Hashable, Sendable {
    public var id: SessionID
    public var device: String
    public var ip: String
    public var createdAt: Int64
    public var lastUsedAt: Int64
    public var revokedAt: Int64?
    /// True for the session the request itself was made with.
    public var current: Bool

    public init(
        id: SessionID, device: String, ip: String, createdAt: Int64, lastUsedAt: Int64, revokedAt: Int64?, current: Bool
    ) {
        self.id = id
        self.device = device
        self.ip = ip
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
        self.current = current
    }
}

/// The answer to a login or a refresh: a short-lived access token for every request and a
/// long-lived refresh token that buys a new pair once.
public struct TokenResponse: Codable, Sendable {
    public var accessToken: String
    public var accessTokenExpiresAt: Int64
    public var refreshToken: String
    public var refreshTokenExpiresAt: Int64
    public var session: SessionInfo
    public var account: Account

    public init(
        accessToken: String, accessTokenExpiresAt: Int64, refreshToken: String, refreshTokenExpiresAt: Int64,
        session: SessionInfo, account: Account
    ) {
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.session = session
        self.account = account
    }
}

/// `PATCH /v1/me`: fields left out stay as they are; an empty `avatar`, `gender`,
/// `birthday` or `region` removes it.
public struct ProfileUpdate: Codable, Hashable, Sendable, StrictDecodable {
    public var nickname: String?
    public var signature: String?
    public var avatar: String?
    public var gender: String?
    public var birthday: String?
    public var region: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case nickname, signature, avatar, gender, birthday, region
    }

    public init(
        nickname: String? = nil, signature: String? = nil, avatar: String? = nil, gender: String? = nil,
        birthday: String? = nil, region: String? = nil
    ) {
        self.nickname = nickname
        self.signature = signature
        self.avatar = avatar
        self.gender = gender
        self.birthday = birthday
        self.region = region
    }
}
