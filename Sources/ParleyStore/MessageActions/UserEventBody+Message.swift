import ParleyCore

extension UserEventBody {
    /// The message a `message.updated` event carries, whose later recall rewrites the event
    /// (see ``MessageRules/redacted(_:recalled:)``).
    public var updatedMessageId: MessageID? {
        guard case .messageUpdated(let update) = self else { return nil }
        return update.message.id
    }
}
