/// What happened to the security of an account, as its owner's log shows it.
public struct SecurityEventKind: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A device logged in (a new session).
    public static let login = SecurityEventKind(rawValue: "login")
    public static let passwordChanged = SecurityEventKind(rawValue: "password_changed")
    /// The password was set anew with a code (`POST /v1/password-reset/confirm`).
    public static let passwordReset = SecurityEventKind(rawValue: "password_reset")
    public static let emailVerified = SecurityEventKind(rawValue: "email_verified")
    public static let phoneVerified = SecurityEventKind(rawValue: "phone_verified")
    public static let emailChanged = SecurityEventKind(rawValue: "email_changed")
    public static let phoneChanged = SecurityEventKind(rawValue: "phone_changed")
    public static let twoFactorEnabled = SecurityEventKind(rawValue: "two_factor_enabled")
    public static let twoFactorDisabled = SecurityEventKind(rawValue: "two_factor_disabled")
    /// A recovery code stood in for the authenticator app.
    public static let recoveryCodeUsed = SecurityEventKind(rawValue: "recovery_code_used")
    /// A session was ended from another device (or by reusing its refresh token).
    public static let sessionRevoked = SecurityEventKind(rawValue: "session_revoked")
}

/// One entry of the account's security log: what, when, and from which device and address.
public struct SecurityEvent: Codable, Hashable, Sendable {
    public var kind: SecurityEventKind
    public var at: Int64
    /// The device the event concerns (the one that logged in, or whose session ended).
    public var device: String?
    /// The address the request came from.
    public var ip: String?

    public init(kind: SecurityEventKind, at: Int64, device: String? = nil, ip: String? = nil) {
        self.kind = kind
        self.at = at
        self.device = device
        self.ip = ip
    }
}

/// `GET /v1/me/security-events`: newest first.
public struct SecurityEventList: Codable, Hashable, Sendable {
    public var events: [SecurityEvent]

    public init(events: [SecurityEvent]) { self.events = events }
}
