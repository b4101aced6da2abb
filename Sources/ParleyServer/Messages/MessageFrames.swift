import ParleyCore

/// The two frames every message causes, written with ``JSONWriter`` rather than `JSONEncoder`:
/// the push of a committed message to its recipients and the ack of a send. They decode as
/// `Frame<Message>` and `Frame<SendMessageResponse>`.
enum MessageFrames {
    /// `{"type":"message","payload":<message>}`
    static func push(_ message: Message) throws -> String {
        var writer = JSONWriter()
        writer.raw(#"{"type":"message","payload":"#)
        try writer.message(message)
        writer.raw("}")
        return writer.text
    }

    /// `{"type":"result","id":<id>,"payload":{"message":<message>,"duplicate":<bool>}}`
    static func ack(_ response: SendMessageResponse, id: String?) throws -> String {
        var writer = JSONWriter()
        writer.raw(#"{"type":"result","#)
        if let id {
            writer.raw(#""id":"#)
            writer.string(id)
            writer.raw(",")
        }
        writer.raw(#""payload":{"message":"#)
        try writer.message(response.message)
        writer.raw(#","duplicate":"#)
        writer.bool(response.duplicate)
        writer.raw("}}")
        return writer.text
    }
}
