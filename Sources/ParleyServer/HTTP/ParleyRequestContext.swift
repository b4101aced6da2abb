import Hummingbird
import HummingbirdWebSocket
import NIOCore
import ParleyCore

/// The request context of every Parley route, HTTP and WebSocket alike.
public struct ParleyRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    /// The peer's IP address, recorded with each login.
    public let remoteIP: String
    /// The connection, which the WebSocket gateway takes over after the upgrade.
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
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
