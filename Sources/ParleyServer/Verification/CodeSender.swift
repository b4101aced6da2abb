/// Delivers verification codes: to the log (``LogCodeSender``, the default), by email
/// (``SMTPCodeSender``) or to an HTTP webhook such as an SMS gateway (``WebhookCodeSender``).
/// A sender throws when the message could not be handed over; the code is then not kept.
public protocol CodeSender: Sendable {
    func send(_ message: CodeMessage) async throws
}
