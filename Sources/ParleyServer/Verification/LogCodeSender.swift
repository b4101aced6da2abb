import Logging

/// Writes codes to the server's log, under the label `parley.codes`: works with no mail
/// server or SMS gateway, for development and small installations. This is the one place a
/// code is logged, on purpose: the log is its delivery channel.
public struct LogCodeSender: CodeSender {
    let logger: Logger

    public init(logger: Logger = Logger(label: "parley.codes")) { self.logger = logger }

    public func send(_ message: CodeMessage) async throws {
        logger.notice(
            "verification code for \(message.to): \(message.code)",
            metadata: [
                "delivery": "code", "channel": "\(message.channel)", "purpose": "\(message.purpose)",
                "expiresAt": "\(message.expiresAt)",
            ])
    }
}
