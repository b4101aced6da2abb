/// When a session's use is written down.
public enum SessionRules {
    /// A session's last-use time is written at most this often (ms), so that authenticating
    /// a request is normally a read.
    public static let lastUsedResolution: Int64 = 60_000

    /// Whether authenticating at `now` should write the session's last-use time.
    public static func shouldNoteUse(lastUsedAt: Int64, now: Int64) -> Bool {
        now - lastUsedAt >= lastUsedResolution
    }
}
