import ParleyCore

/// The errors every backend raises for the same broken rule, worded once so that the
/// backends cannot drift apart (the contract tests pin some of these texts).
extension ParleyError {
    public static func notAMember(of id: ConversationID) -> ParleyError {
        ParleyError(.notAMember, "You are not a member of conversation \(id).")
    }

    /// A group would grow past its member limit.
    public static func groupFull(limit: Int) -> ParleyError {
        ParleyError(.groupFull, "This group may have at most \(limit) members.")
    }

    /// A retry's `clientMsgId` belongs to a message in another conversation.
    public static func clientMessageIDReused(by original: Message) -> ParleyError {
        ParleyError(
            .clientMessageIDReused,
            "clientMsgId '\(original.clientMsgId)' was already used for a message in conversation \(original.conversationId)."
        )
    }

    /// The username (compared case-insensitively) belongs to another account.
    public static func usernameTaken() -> ParleyError { ParleyError(.usernameTaken, "That username is taken.") }

    /// The email address (canonical form) belongs to another account.
    public static func emailTaken() -> ParleyError {
        ParleyError(.emailTaken, "That email address is already registered.")
    }

    /// The phone number belongs to another account.
    public static func phoneTaken() -> ParleyError {
        ParleyError(.phoneTaken, "That phone number is already registered.")
    }
}
