/// How long after sending a member may recall or edit their own message (the server's
/// `--recall-window` and `--edit-window`, announced in `ready`). Owners and admins of a group
/// recall at any time.
public struct MessageWindows: Hashable, Sendable {
    public var recallMs: Int64
    public var editMs: Int64

    public init(
        recallMs: Int64 = Limits.defaultRecallWindowSeconds * 1000,
        editMs: Int64 = Limits.defaultEditWindowSeconds * 1000
    ) {
        self.recallMs = recallMs
        self.editMs = editMs
    }

    /// The server's defaults.
    public static let defaults = MessageWindows()

    /// The windows a `ready` frame announced, the defaults for what it left out.
    public init(_ ready: ReadyPayload?) {
        self.init(
            recallMs: ready?.recallWindowMs ?? Self.defaults.recallMs,
            editMs: ready?.editWindowMs ?? Self.defaults.editMs)
    }
}
