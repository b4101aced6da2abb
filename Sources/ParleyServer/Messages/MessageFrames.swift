import ParleyCore

/// The two frames every message causes, written with ``JSONWriter`` rather than `JSONEncoder`:
/// the push of a committed message to its recipients and the ack of a send. They decode as
/// `Frame<Message>` and `Frame<SendMessageResponse>`. Other answers that ``JSONWriter`` can
/// write (``JSONWritable``) go out through ``result(id:_:)`` too.
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
        try result(id: id) { writer in
            writer.raw(#"{"message":"#)
            try writer.message(response.message)
            writer.raw(#","duplicate":"#)
            writer.bool(response.duplicate)
            writer.raw("}")
        }
    }

    /// `{"type":"result","id":<id>,"payload":<what writePayload writes>}`
    static func result(id: String?, _ writePayload: (inout JSONWriter) throws -> Void) throws -> String {
        var writer = JSONWriter()
        writer.raw(#"{"type":"result","#)
        if let id {
            writer.raw(#""id":"#)
            writer.string(id)
            writer.raw(",")
        }
        writer.raw(#""payload":"#)
        try writePayload(&writer)
        writer.raw("}")
        return writer.text
    }
}
