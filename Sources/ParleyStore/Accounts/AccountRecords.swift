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
    public var createdAt: Int64

    public init(
        id: UserID, username: String, email: String?, phone: String?, passwordHash: String, nickname: String,
        signature: String, createdAt: Int64
    ) {
        self.id = id
        self.username = username
        self.email = email
        self.phone = phone
        self.passwordHash = passwordHash
        self.nickname = nickname
        self.signature = signature
        self.createdAt = createdAt
    }

    /// The public profile.
    public var user: User {
        User(id: id, username: username, nickname: nickname, signature: signature, createdAt: createdAt)
    }

    /// The profile with the owner-only fields.
    public var account: Account { Account(user: user, email: email, phone: phone) }
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
