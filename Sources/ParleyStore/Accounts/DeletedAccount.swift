import ParleyCore

/// What a deleted account keeps of itself: the name others see beside its messages, and a
/// username no one can register (`-` is not allowed in usernames).
public enum DeletedAccount {
    public static let nickname = "Deleted account"

    public static func username(of userId: UserID) -> String { "deleted-\(userId.rawValue)" }

    /// No bcrypt hash looks like this, so no password matches it.
    public static let passwordHash = "!"

    /// The tables whose rows of a deleted user go: its push tokens, two-factor login, codes
    /// and security log.
    public static let droppedTables = [
        "push_tokens", "two_factor", "recovery_codes", "verification_codes", "security_events",
    ]
}
