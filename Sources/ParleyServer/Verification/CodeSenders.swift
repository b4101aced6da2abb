import Foundation
import ParleyCore

/// The sender of each channel, made from `--email-codes` and `--phone-codes`: `log`,
/// `smtp://…` or `smtps://…` (email only), or an `https://` webhook. A webhook's secret
/// comes from `PARLEY_CODE_WEBHOOK_SECRET`.
struct CodeSenders: Sendable {
    let email: any CodeSender
    let phone: any CodeSender

    init(email: any CodeSender, phone: any CodeSender) {
        self.email = email
        self.phone = phone
    }

    init(_ configuration: ServerConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws
    {
        email = try Self.sender(configuration.emailCodes, channel: .email, environment: environment)
        phone = try Self.sender(configuration.phoneCodes, channel: .phone, environment: environment)
    }

    func sender(for channel: VerificationChannel) -> any CodeSender { channel == .phone ? phone : email }

    private static func sender(_ setting: String, channel: VerificationChannel, environment: [String: String]) throws
        -> any CodeSender
    {
        if setting == "log" { return LogCodeSender() }
        if setting.hasPrefix("http://") || setting.hasPrefix("https://") {
            return try WebhookCodeSender(url: setting, secret: environment["PARLEY_CODE_WEBHOOK_SECRET"])
        }
        if channel == .email, setting.hasPrefix("smtp://") || setting.hasPrefix("smtps://") {
            return try SMTPCodeSender(url: setting, environment: environment)
        }
        let kinds =
            channel == .email ? "'log', smtp://…, smtps://… or an https:// webhook" : "'log' or an https:// webhook"
        throw CodeSenderConfigurationError("Codes for \(channel)s go to \(kinds); '\(setting)' is none of these.")
    }
}
