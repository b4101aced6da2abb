/// A request that can also be read from a parsed ``JSONValue`` object without `JSONDecoder`,
/// on a hot path. `init?(fastFrom:)` answers nil whenever the object is not plainly valid
/// (an unknown or null field, a wrong type): the caller then decodes strictly the usual way,
/// which gives the precise error.
public protocol FastDecodable {
    init?(fastFrom object: [String: JSONValue])
}

extension SendMessageRequest: FastDecodable {
    public init?(fastFrom object: [String: JSONValue]) {
        var conversationId: ConversationID?
        var toUserId: UserID?
        var clientMsgId: String?
        var kind: MessageKind?
        var content: JSONValue?
        for (key, value) in object {
            switch (key, value) {
            case ("conversationId", .number(.integer(let id))): conversationId = ConversationID(id)
            case ("toUserId", .number(.integer(let id))): toUserId = UserID(id)
            case ("clientMsgId", .string(let id)): clientMsgId = id
            case ("kind", .string(let name)): kind = MessageKind(rawValue: name)
            case ("content", _): content = value
            default: return nil
            }
        }
        guard let clientMsgId, let kind, let content else { return nil }
        self.init(
            conversationId: conversationId, toUserId: toUserId, clientMsgId: clientMsgId, kind: kind, content: content)
    }
}

extension ReadRequest: FastDecodable {
    public init?(fastFrom object: [String: JSONValue]) {
        var conversationId: ConversationID?
        var seq: Int64?
        for (key, value) in object {
            switch (key, value) {
            case ("conversationId", .number(.integer(let id))): conversationId = ConversationID(id)
            case ("seq", .number(.integer(let number))): seq = number
            default: return nil
            }
        }
        guard let seq else { return nil }
        self.init(conversationId: conversationId, seq: seq)
    }
}
