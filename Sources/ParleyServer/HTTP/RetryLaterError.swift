import ParleyCore

/// A ``ParleyError`` that tells the client when to try again, rendered over HTTP with a
/// `Retry-After` header (seconds); over the WebSocket, its error alone (whose `until` says
/// the same).
struct RetryLaterError: Error, Sendable {
    let error: ParleyError
    let afterSeconds: Int64

    init(_ error: ParleyError, afterSeconds: Int64) {
        self.error = error
        self.afterSeconds = afterSeconds
    }
}
