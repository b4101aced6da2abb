import Foundation

/// How a ``ParleyClient`` reaches its server and how patient it is.
public struct ClientConfiguration: Sendable {
    /// `http://host:port` or `https://host:port`.
    public var serverURL: String
    public var connection = ConnectionStateMachine.Configuration()
    /// A message not committed this long after it was queued becomes `failed(retryable: true)`.
    public var sendTimeout: Duration = .seconds(60)
    /// How long one request over the socket may take.
    public var requestTimeout: Duration = .seconds(15)
    /// The device name recorded with the session.
    public var deviceName = "ParleyKit"

    public init(serverURL: String) {
        self.serverURL = serverURL
    }
}

/// The signed-in session, persisted in the ``ClientStore``.
public struct StoredSession: Codable, Sendable, Equatable {
    public var userId: Int64
    public var username: String
    public var sessionId: Int64
    public var accessToken: String
    public var accessTokenExpiresAt: Int64
    public var refreshToken: String
}
