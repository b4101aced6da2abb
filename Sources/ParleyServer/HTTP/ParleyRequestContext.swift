import Hummingbird
import NIOCore
import ParleyCore

/// The request context of every Parley route, HTTP and WebSocket upgrades alike.
public struct ParleyRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address, recorded with each login.
    public let remoteIP: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteIP = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// JSON bodies are small; anything larger is refused with `payload_too_large`.
    public var maxUploadSize: Int { Limits.maxRequestBodyBytes }
}

/// Who made a request: the user and the session whose token they presented.
public struct Identity: Sendable, Hashable {
    public var userId: UserID
    public var sessionId: SessionID
}
