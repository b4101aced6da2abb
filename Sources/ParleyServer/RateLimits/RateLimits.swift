/// The rate limits of a server, each by name (`--rate-limit NAME=BURST,COUNT/UNIT` or
/// `NAME=off`). Per address: `register`, `login`, `code-ip`; per account: `login-account`,
/// `code`, `friend-request`, `send`, `upload`. With PostgreSQL, every node draws on the same
/// buckets.
public struct RateLimits: Sendable, Hashable {
    /// What each limit counts, for documents and errors.
    public enum Name: String, Sendable, CaseIterable {
        case register
        case login
        case loginAccount = "login-account"
        case code
        case codeIP = "code-ip"
        case friendRequest = "friend-request"
        case send
        case upload

        /// What a refused request was, in an error message.
        var action: String {
            switch self {
            case .register: "accounts registered from your address"
            case .login: "logins from your address"
            case .loginAccount: "logins to this account"
            case .code: "codes asked for this account"
            case .codeIP: "codes asked from your address"
            case .friendRequest: "friend requests"
            case .send: "messages sent"
            case .upload: "uploads started"
            }
        }
    }

    public var limits: [Name: RateLimit]

    public init(_ limits: [Name: RateLimit]) { self.limits = limits }

    /// Generous for people, tight for scripts.
    public static let defaults = RateLimits([
        .register: RateLimit(burst: 10, 10, per: 3_600),
        .login: RateLimit(burst: 30, 60, per: 60),
        .loginAccount: RateLimit(burst: 10, 10, per: 60),
        .code: RateLimit(burst: 5, 10, per: 3_600),
        .codeIP: RateLimit(burst: 20, 20, per: 3_600),
        .friendRequest: RateLimit(burst: 20, 60, per: 3_600),
        .send: RateLimit(burst: 50, 10, per: 1),
        .upload: RateLimit(burst: 20, 1, per: 1),
    ])

    /// No limit at all (benchmarks, tests of other things).
    public static let off = RateLimits([:])

    public subscript(name: Name) -> RateLimit? {
        get { limits[name] }
        set { limits[name] = newValue }
    }

    /// Applies `NAME=BURST,COUNT/UNIT` or `NAME=off`; false (changing nothing) for anything else.
    public mutating func apply(_ setting: String) -> Bool {
        let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let name = Name(rawValue: parts[0]) else { return false }
        if parts[1] == "off" {
            limits[name] = nil
            return true
        }
        guard let limit = RateLimit(parsing: parts[1]) else { return false }
        limits[name] = limit
        return true
    }
}
