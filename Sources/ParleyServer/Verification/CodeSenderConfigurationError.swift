/// `--email-codes` or `--phone-codes` names a sender that cannot be made; the message says
/// which part is wrong.
public struct CodeSenderConfigurationError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
