/// Why an email was not sent: a malformed `smtp://` URL (step `URL`), or a step of the
/// conversation with the mail server that went wrong. The description names the step and, when
/// the server refused it, the server's reply code and text. It never holds the password.
public struct SMTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done: `URL`, `message`, `connect`, `greeting`, `EHLO`, `STARTTLS`, `TLS`
    /// (the handshake, or any later failure of TLS), `EHLO after STARTTLS`, `AUTH`, `MAIL FROM`,
    /// `RCPT TO` or `DATA`.
    public let step: String
    /// The server's reply code when the server refused the step, such as 535 for AUTH.
    public let replyCode: Int?
    /// What went wrong, in words.
    public let message: String

    public var description: String { "SMTP \(step): \(message)" }

    init(step: String, message: String) {
        self.step = step
        self.replyCode = nil
        self.message = message
    }

    /// The server answered `reply` where it should have accepted the step.
    init(step: String, refusal reply: SMTPReply) {
        self.step = step
        self.replyCode = reply.code
        self.message = "the server answered \(reply)"
    }

    /// The `smtp://` URL is wrong; `message` says which part and how.
    static func url(_ message: String) -> SMTPError {
        SMTPError(step: "URL", message: message)
    }
}
