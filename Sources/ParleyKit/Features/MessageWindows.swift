import ParleyCore

/// How long after sending a member may recall or edit their own message, as the server
/// announced when the socket signed in (its defaults until then). Owners and admins of a
/// group recall at any time.
public struct MessageWindows: Hashable, Sendable {
    public var recallMs: Int64
    public var editMs: Int64

    public init(recallMs: Int64 = 120_000, editMs: Int64 = 900_000) {
        self.recallMs = recallMs
        self.editMs = editMs
    }

    /// The windows a `ready` frame announced, the defaults for what it left out.
    public init(_ ready: ReadyPayload?) {
        let defaults = MessageWindows()
        self.init(
            recallMs: ready?.recallWindowMs ?? defaults.recallMs, editMs: ready?.editWindowMs ?? defaults.editMs)
    }
}
