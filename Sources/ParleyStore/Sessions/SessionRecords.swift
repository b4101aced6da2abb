import ParleyCore

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
