import Foundation

/// Something that happened on a real-time socket.
public enum SocketEvent: Sendable, Equatable {
    case text(String)
    /// The socket is gone; `code` is the WebSocket close code when the server sent one.
    case closed(code: Int?)
}

/// One open WebSocket. Apps may supply their own (a `URLSessionWebSocketTask` one on iOS).
public protocol RealtimeSocket: Sendable {
    /// Incoming frames in order, ending with exactly one `.closed`.
    var events: AsyncStream<SocketEvent> { get }
    func send(_ text: String) async throws
    /// Closes the socket; `events` then ends with `.closed`.
    func close() async
}

/// Opens real-time sockets.
public protocol RealtimeTransport: Sendable {
    func open(url: String) async throws -> any RealtimeSocket
}

/// A plain HTTP exchange, for the operations that run without a socket.
public protocol HTTPTransport: Sendable {
    func perform(method: String, url: String, headers: [String: String], body: Data?) async throws
        -> (status: Int, body: Data)
}

/// Transport failures, told apart so callers know whether a retry can help.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Could not reach the server, or the connection broke mid-request.
        case unreachable
        /// The socket is not connected right now.
        case notConnected
        /// No answer within the timeout.
        case timedOut
    }

    public var kind: Kind
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { detail }
}
