import ParleyCore

/// Which stored column a login string is looked up by, and in what canonical form: an
/// address with `@` is an email, one starting with `+` a phone number, anything else a
/// username.
public struct LoginKey: Sendable, Hashable {
    /// The column of `users` that holds the key.
    public let column: String
    public let value: String

    public init(login: String) {
        if login.contains("@") {
            self.init(column: "email", value: AccountRules.canonicalEmail(login))
        } else if login.hasPrefix("+") {
            self.init(column: "phone", value: login)
        } else {
            self.init(username: login)
        }
    }

    /// The key of a username, compared case-insensitively.
    public init(username: String) {
        self.init(column: "username_key", value: AccountRules.canonicalUsername(username))
    }

    /// The key of an email address, compared ignoring ASCII case.
    public init(email: String) {
        self.init(column: "email", value: AccountRules.canonicalEmail(email))
    }

    /// The key of a phone number, as written (E.164).
    public init(phone: String) {
        self.init(column: "phone", value: phone)
    }

    private init(column: String, value: String) {
        self.column = column
        self.value = value
    }
}
