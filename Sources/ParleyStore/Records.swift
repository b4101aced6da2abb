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

/// Hashes and expiry times of a session's current token pair. Tokens themselves are never stored.
public struct SessionTokens: Sendable, Hashable {
    public var accessTokenHash: String
    public var accessExpiresAt: Int64
    public var refreshTokenHash: String
    public var refreshExpiresAt: Int64

    public init(accessTokenHash: String, accessExpiresAt: Int64, refreshTokenHash: String, refreshExpiresAt: Int64) {
        self.accessTokenHash = accessTokenHash
        self.accessExpiresAt = accessExpiresAt
        self.refreshTokenHash = refreshTokenHash
        self.refreshExpiresAt = refreshExpiresAt
    }
}

/// A session to create at login.
public struct NewSession: Sendable {
    public var userId: UserID
    public var device: String
    public var ip: String
    public var tokens: SessionTokens
    public var createdAt: Int64

    public init(userId: UserID, device: String, ip: String, tokens: SessionTokens, createdAt: Int64) {
        self.userId = userId
        self.device = device
        self.ip = ip
        self.tokens = tokens
        self.createdAt = createdAt
    }
}

/// A stored session.
public struct SessionRecord: Sendable, Hashable {
    public var id: SessionID
    public var userId: UserID
    public var device: String
    public var ip: String
    public var createdAt: Int64
    public var lastUsedAt: Int64
    public var revokedAt: Int64?
    public var accessExpiresAt: Int64
    public var refreshExpiresAt: Int64

    public init(
        id: SessionID, userId: UserID, device: String, ip: String, createdAt: Int64, lastUsedAt: Int64,
        revokedAt: Int64?, accessExpiresAt: Int64, refreshExpiresAt: Int64
    ) {
        self.id = id
        self.userId = userId
        self.device = device
        self.ip = ip
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
        self.accessExpiresAt = accessExpiresAt
        self.refreshExpiresAt = refreshExpiresAt
    }

    /// The wire form, marking whether it is the session `current` belongs to.
    public func info(current: SessionID?) -> SessionInfo {
        SessionInfo(
            id: id, device: device, ip: ip, createdAt: createdAt, lastUsedAt: lastUsedAt, revokedAt: revokedAt,
            current: id == current)
    }
}

/// Where a new message goes.
public enum MessageTarget: Sendable, Hashable {
    case conversation(ConversationID)
    /// The direct conversation with this user, created on the first message.
    case directWith(UserID)
}

/// A message to append; content already validated.
public struct NewMessage: Sendable {
    public var target: MessageTarget
    public var senderId: UserID
    public var clientMsgId: String
    public var kind: MessageKind
    public let content: JSONValue
    /// `content` as JSON text, encoded once: what is stored, and what size limits apply to.
    public let contentJSON: String
    public var sentAt: Int64
    /// The connection that sent it, which gets the ack and so needs no push of its own.
    public var origin: ConnectionTag?

    public init(
        target: MessageTarget, senderId: UserID, clientMsgId: String, kind: MessageKind, content: JSONValue,
        sentAt: Int64, origin: ConnectionTag? = nil
    ) throws {
        self.target = target
        self.senderId = senderId
        self.clientMsgId = clientMsgId
        self.kind = kind
        self.content = content
        var writer = JSONWriter()
        try writer.value(content)
        self.contentJSON = writer.text
        self.sentAt = sentAt
        self.origin = origin
    }
}

/// Identifies one live connection of one server node, so fan-out can skip the sender's own.
public struct ConnectionTag: Sendable, Hashable {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
}

/// The outcome of ``ParleyStore/appendMessage(_:)``.
public struct AppendResult: Sendable, Hashable {
    public var message: Message
    /// True when the message had been committed before with the same `clientMsgId`.
    public var duplicate: Bool

    public init(message: Message, duplicate: Bool) {
        self.message = message
        self.duplicate = duplicate
    }
}

/// One page of ``ParleyStore/sync(userId:since:limit:)``.
public struct SyncBatch: Sendable, Hashable {
    public var conversations: [ConversationSummary]
    public var events: [UserEvent]
    public var cursor: SyncCursor
    public var hasMore: Bool

    public init(conversations: [ConversationSummary], events: [UserEvent], cursor: SyncCursor, hasMore: Bool) {
        self.conversations = conversations
        self.events = events
        self.cursor = cursor
        self.hasMore = hasMore
    }
}
