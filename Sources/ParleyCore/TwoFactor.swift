/// `POST /v1/me/two-factor` answers: the secret to put in an authenticator app, as Base32 and
/// as an `otpauth://totp/…` URI (a QR code of it is what apps scan). Two-factor login is not
/// on until a first code confirms it.
public struct TwoFactorSetup: Codable, Hashable, Sendable {
    public var secret: String
    public var uri: String

    public init(secret: String, uri: String) {
        self.secret = secret
        self.uri = uri
    }
}

/// A six-digit code from the authenticator app, or for disabling and logging in, one of the
/// recovery codes.
public struct TwoFactorCodeRequest: Codable, Sendable, StrictDecodable {
    public var code: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case code
    }

    public init(code: String) { self.code = code }
}

/// `POST /v1/me/two-factor/confirm` answers: two-factor login is on, and these one-time
/// recovery codes (shown once, stored only as hashes) stand in for a lost authenticator.
public struct RecoveryCodes: Codable, Hashable, Sendable {
    public var recoveryCodes: [String]

    public init(recoveryCodes: [String]) { self.recoveryCodes = recoveryCodes }
}

/// `GET /v1/me/two-factor`: whether two-factor login is on, and how many recovery codes are
/// left unused.
public struct TwoFactorStatus: Codable, Hashable, Sendable {
    public var enabled: Bool
    public var recoveryCodesLeft: Int

    public init(enabled: Bool, recoveryCodesLeft: Int) {
        self.enabled = enabled
        self.recoveryCodesLeft = recoveryCodesLeft
    }
}

/// `POST /v1/sessions` answers `202` with this when the password was right and the account
/// has two-factor login: the second step (`POST /v1/sessions/second-factor`) presents the
/// challenge with a code before `expiresAt`.
public struct SecondFactorChallenge: Codable, Hashable, Sendable {
    public var challenge: String
    public var expiresAt: Int64

    public init(challenge: String, expiresAt: Int64) {
        self.challenge = challenge
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/sessions/second-factor`: the challenge of the first step with a code from the
/// authenticator app or a recovery code.
public struct SecondFactorRequest: Codable, Sendable, StrictDecodable {
    public var challenge: String
    public var code: String

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case challenge, code
    }

    public init(challenge: String, code: String) {
        self.challenge = challenge
        self.code = code
    }
}

/// What `POST /v1/sessions` answers: a session (`201`), or a second step to take (`202`).
public enum LoginOutcome: Decodable, Sendable {
    case signedIn(TokenResponse)
    case secondFactorRequired(SecondFactorChallenge)

    private enum Keys: String, CodingKey { case challenge }

    public init(from decoder: any Decoder) throws {
        if try decoder.container(keyedBy: Keys.self).contains(.challenge) {
            self = .secondFactorRequired(try SecondFactorChallenge(from: decoder))
        } else {
            self = .signedIn(try TokenResponse(from: decoder))
        }
    }
}
