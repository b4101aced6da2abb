import ParleyCore

/// A verification code on its way to a person: where it goes, what it is for, and the text
/// that carries it.
public struct CodeMessage: Sendable, Hashable {
    public var channel: VerificationChannel
    /// An email address or a phone number in E.164 form.
    public var to: String
    public var purpose: VerificationPurpose
    public var code: String
    public var expiresAt: Int64

    public init(channel: VerificationChannel, to: String, purpose: VerificationPurpose, code: String, expiresAt: Int64)
    {
        self.channel = channel
        self.to = to
        self.purpose = purpose
        self.code = code
        self.expiresAt = expiresAt
    }

    /// A subject line for an email.
    public var subject: String {
        switch purpose {
        case .resetPassword: "Your Parley password reset code"
        case .changeEmail, .changePhone: "Confirm your new Parley address"
        default: "Your Parley verification code"
        }
    }

    /// The message itself, short enough for a text message.
    public var text: String {
        let minutes = VerificationRules.codeLifetimeMs / 60_000
        let what =
            switch purpose {
            case .resetPassword: "to set a new password"
            case .changeEmail: "to make this your account's email"
            case .changePhone: "to make this your account's phone"
            default: "to confirm this address"
            }
        return
            "Your Parley code is \(code). Enter it \(what); it works for \(minutes) minutes. "
            + "If you did not ask for it, ignore this message."
    }
}
