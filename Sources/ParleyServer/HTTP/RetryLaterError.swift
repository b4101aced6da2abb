import ParleyCore

/// A ``ParleyError`` that tells the client when to try again, rendered over HTTP with a
/// `Retry-After` header (seconds); over the WebSocket, its error alone (whose `until` says
/// the same).
struct RetryLaterError: Error, Sendable {
    let error: ParleyError
    let afterSeconds: Int64

    /// A refusal with `code` until `until` (ms since the epoch), seen at `now`: `message` is
    /// handed the wait in words ("20 second(s)", "15 minute(s)"), and the error carries `until`.
    init(_ code: ErrorCode, until: Int64, now: Int64, _ message: (_ wait: String) -> String) {
        let seconds = max(1, (until - now + 999) / 1_000)
        let wait = seconds >= 120 ? "\(seconds / 60) minute(s)" : "\(seconds) second(s)"
        self.error = ParleyError(code, message(wait), until: until)
        self.afterSeconds = seconds
    }
}
