/// The access key an S3 store signs its requests with.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// Sent as `x-amz-security-token` with temporary credentials.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The credentials in `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, if set,
    /// `AWS_SESSION_TOKEN`.
    public init(environment: [String: String]) throws {
        func value(_ name: String) throws -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw S3ConfigurationError(
                    "\(name) is not set: the S3 store needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
            }
            return value
        }
        self.init(
            accessKeyID: try value("AWS_ACCESS_KEY_ID"), secretAccessKey: try value("AWS_SECRET_ACCESS_KEY"),
            sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The access key ID only: the secrets stay out of logs.
    public var description: String { "S3Credentials(\(accessKeyID), secret hidden)" }
}
