import ParleyCore

/// A user as stored, including the private fields and the password hash.
public struct UserRecord: Sendable, Hashable {
    public var id: UserID
    public var username: String
    public var email: String?
    public var phone: String?
    public var passwordHash: String
    public var nickname: String
    public var signature: String
    public var avatar: String?
    public var gender: Gender?
    public var birthday: String?
    public var region: String?
    public var privacy: PrivacySettings
    public var createdAt: Int64
    /// When a code sent to the email (or phone) came back; nil while unverified.
    public var emailVerifiedAt: Int64?
    public var phoneVerifiedAt: Int64?
    /// When the account was deleted (``AccountStore/deleteAccount(_:at:)``); nil while it lives.
    public var deletedAt: Int64?

    public init(
        id: UserID, username: String, email: String?, phone: String?, passwordHash: String, nickname: String,
        signature: String, avatar: String? = nil, gender: Gender? = nil, birthday: String? = nil,
        region: String? = nil, privacy: PrivacySettings = .defaults, createdAt: Int64, emailVerifiedAt: Int64? = nil,
        phoneVerifiedAt: Int64? = nil, deletedAt: Int64? = nil
    ) {
        self.deletedAt = deletedAt
        self.emailVerifiedAt = emailVerifiedAt
        self.phoneVerifiedAt = phoneVerifiedAt
        self.privacy = privacy
        self.id = id
        self.username = username
        self.email = email
        self.phone = phone
        self.passwordHash = passwordHash
        self.nickname = nickname
        self.signature = signature
        self.avatar = avatar
        self.gender = gender
        self.birthday = birthday
        self.region = region
        self.createdAt = createdAt
    }

    /// The public profile.
    public var user: User {
        User(
            id: id, username: username, nickname: nickname, signature: signature, avatar: avatar, gender: gender,
            birthday: birthday, region: region, createdAt: createdAt, deleted: deletedAt.map { _ in true })
    }

    /// This user with `update` applied (validated already): fields left out stay, an empty
    /// detail is removed.
    public func updated(by update: ProfileUpdate) -> UserRecord {
        func detail(_ given: String?, _ current: String?) -> String? {
            guard let given else { return current }
            return given.isEmpty ? nil : given
        }
        var user = self
        user.nickname = update.nickname ?? nickname
        user.signature = update.signature ?? signature
        user.avatar = detail(update.avatar, avatar)
        user.gender = detail(update.gender, gender?.rawValue).map(Gender.init(rawValue:))
        user.birthday = detail(update.birthday, birthday)
        user.region = detail(update.region, region)
        return user
    }

    /// The profile with the owner-only fields.
    public var account: Account {
        Account(
            user: user, email: email, phone: phone, privacy: privacy,
            emailVerified: email.map { _ in emailVerifiedAt != nil },
            phoneVerified: phone.map { _ in phoneVerifiedAt != nil })
    }

    /// Whether `key` finds this user for `seeker`: always for themselves, else as their
    /// privacy settings say for that way of looking.
    public func isFound(by key: LoginKey, for seeker: UserID) -> Bool {
        guard deletedAt == nil else { return false }
        guard seeker != id else { return true }
        let setting =
            switch key.column {
            case "email": privacy.findByEmail
            case "phone": privacy.findByPhone
            default: privacy.findByUsername
            }
        return setting.findsEveryone
    }
}

/// A user to create; fields already validated and canonical.
public struct NewUser: Sendable {
    public var username: String
    public var email: String?
    public var phone: String?
    public var passwordHash: String
    public var nickname: String
    public var createdAt: Int64

    public init(
        username: String, email: String?, phone: String?, passwordHash: String, nickname: String, createdAt: Int64
    ) {
        self.username = username
        self.email = email
        self.phone = phone
        self.passwordHash = passwordHash
        self.nickname = nickname
        self.createdAt = createdAt
    }
}
