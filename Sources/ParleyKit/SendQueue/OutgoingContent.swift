import ParleyCore

/// The content of the messages users type: a text, or a reply, with whom they mention.
public enum OutgoingContent {
    /// `{text, mentions?, mentionAll?}`.
    public static func text(_ text: String, mentions: Mentions = .none) -> JSONValue {
        .object(fields(text, mentions))
    }

    /// `{text, replyTo, mentions?, mentionAll?}`: a text that quotes message `messageId` of
    /// the same conversation.
    public static func reply(_ text: String, to messageId: MessageID, mentions: Mentions = .none) -> JSONValue {
        var fields = fields(text, mentions)
        fields["replyTo"] = .number(.integer(messageId.rawValue))
        return .object(fields)
    }

    private static func fields(_ text: String, _ mentions: Mentions) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["text": .string(text)]
        if !mentions.userIds.isEmpty {
            fields["mentions"] = .array(mentions.userIds.map { .number(.integer($0.rawValue)) })
        }
        if mentions.all { fields["mentionAll"] = .bool(true) }
        return fields
    }
}
