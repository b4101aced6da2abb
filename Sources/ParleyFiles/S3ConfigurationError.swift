/// Why an S3 store could not be configured: a malformed `s3://` URL or missing credentials.
/// The message says what is wrong and what was expected.
public struct S3ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public var description: String { message }

    init(_ message: String) {
        self.message = message
    }
}
