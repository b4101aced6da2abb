/// What a verification code is for. A code works only for the purpose (and the address) it
/// was sent for.
public struct VerificationPurpose: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Confirms that the account's email is the user's.
    public static let verifyEmail: VerificationPurpose = "verify_email"
    /// Confirms that the account's phone is the user's.
    public static let verifyPhone: VerificationPurpose = "verify_phone"
    /// Replaces the email with a new one, once a code sent to the new one comes back.
    public static let changeEmail: VerificationPurpose = "change_email"
    /// Replaces the phone with a new one, once a code sent to the new one comes back.
    public static let changePhone: VerificationPurpose = "change_phone"
    /// Sets a new password without the old one (`POST /v1/password-reset`).
    public static let resetPassword: VerificationPurpose = "reset_password"

    /// The purposes a signed-in user asks codes for (`POST /v1/me/verification`).
    public static let forAccount: [VerificationPurpose] = [.verifyEmail, .verifyPhone, .changeEmail, .changePhone]

    /// Where its code goes: an email or a phone. (A `reset_password` code goes to the
    /// account's email, or to its phone when it has no email.)
    public var channel: VerificationChannel {
        self == .verifyPhone || self == .changePhone ? .phone : .email
    }
}

/// How a code travels: by email or by text message.
public struct VerificationChannel: OpenStringValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let email: VerificationChannel = "email"
    public static let phone: VerificationChannel = "phone"
}

/// `POST /v1/me/verification`: send a code. `destination` is the new email or phone for
/// `change_email` and `change_phone`, and left out for `verify_email` and `verify_phone`
/// (the account's own).
public struct VerificationCodeRequest: Codable, Sendable, StrictDecodable {
    public var purpose: String
    public var destination: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case purpose, destination
    }

    public init(purpose: VerificationPurpose, destination: String? = nil) {
        self.purpose = purpose.rawValue
        self.destination = destination
    }
}

/// A code was sent (`202`): where to (partly hidden), until when it works, and when another
/// may be asked for.
public struct VerificationCodeSent: Codable, Hashable, Sendable {
    public var purpose: VerificationPurpose
    public var channel: VerificationChannel
    /// The address with most of it hidden: `a•••@example.com`, `+86•••••••1234`.
    public var destination: String
    public var expiresAt: Int64
    /// No new code for this purpose before this time (`rate_limited` until then).
    public var resendAt: Int64

    public init(
        purpose: VerificationPurpose, channel: VerificationChannel, destination: String, expiresAt: Int64,
        resendAt: Int64
    ) {
        self.purpose = purpose
        self.channel = channel
        self.destination = destination
        self.expiresAt = expiresAt
        self.resendAt = resendAt
    }
}

/// `POST /v1/me/verification/confirm`: the code that came back, for its purpose. Answers the
/// account with the address verified (or replaced).
public struct VerificationConfirmRequest: Codable, Sendable, StrictDecodable {
    public var purpose: String
    public var code: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case purpose, code
    }

    public init(purpose: VerificationPurpose, code: String) {
        self.purpose = purpose.rawValue
        self.code = code
    }
}

/// `POST /v1/password-reset`: send a reset code to the account's email (or, without one, its
/// phone). The answer is the same whether or not the login names an account.
public struct PasswordResetRequest: Codable, Sendable, StrictDecodable {
    public var login: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case login
    }

    public init(login: String) { self.login = login }
}

/// `POST /v1/password-reset` answers `202`: if the login names an account with an email or
/// phone, a code went there and works until `expiresAt`.
public struct PasswordResetStarted: Codable, Hashable, Sendable {
    public var expiresAt: Int64

    public init(expiresAt: Int64) { self.expiresAt = expiresAt }
}

/// `POST /v1/password-reset/confirm`: the code and the new password. Every session of the
/// account ends.
public struct PasswordResetConfirmRequest: Codable, Sendable, StrictDecodable {
    public var login: String
    public var code: String
    public var newPassword: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case login, code, newPassword
    }

    public init(login: String, code: String, newPassword: String) {
        self.login = login
        self.code = code
        self.newPassword = newPassword
    }
}

/// The rules of verification codes, the same for every server.
public enum VerificationRules {
    /// Six digits.
    public static let codeLength = 6
    /// How long a code works: 10 minutes.
    public static let codeLifetimeMs: Int64 = 10 * 60_000
    /// How long before another code for the same purpose may be sent: 60 seconds.
    public static let resendIntervalMs: Int64 = 60_000
    /// Wrong tries a code survives; the next wrong one ends it.
    public static let maxAttempts = 5

    /// `destination` with most of it hidden, for showing where a code went.
    public static func masked(_ destination: String, channel: VerificationChannel) -> String {
        if channel == .email, let at = destination.firstIndex(of: "@") {
            return String(destination[..<at].prefix(1)) + "•••" + destination[at...]
        }
        let characters = Array(destination)
        guard characters.count > 6 else { return String(repeating: "•", count: characters.count) }
        let start = characters.first == "+" ? 3 : 0
        return String(characters[..<start]) + String(repeating: "•", count: characters.count - start - 4)
            + String(characters.suffix(4))
    }
}
