import ParleyCore

/// Typing indicators over the WebSocket (they have no HTTP form: a client that is not
/// connected cannot see anyone type either).
struct TypingController {
    let typing: TypingService

    /// The request frames of typing.
    var frameHandlers: [FrameHandler] {
        [
            .result(.typing) { (body: TypingRequest, request) in
                try await typing.typing(
                    body.typing, in: try request.conversationId(body.conversationId), by: request.identity)
                return EmptyPayload()
            }
        ]
    }
}
