import Hummingbird
import ParleyCore

/// Sending, history and read state, over HTTP and the WebSocket.
struct MessageController {
    let messages: MessageService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.history) { request, context, identity in
            let query = HistoryQuery(
                before: try request.queryInteger("before"), after: try request.queryInteger("after"),
                limit: try request.queryInteger("limit").map { Int(clamping: $0) })
            return JSONResponse(try await messages.history(query, in: try context.id("conversationId"), for: identity))
        }
        routes.authenticated(.markRead) { request, context, identity in
            let body = try await request.decodeJSON(ReadRequest.self, context: context)
            let conversationId: ConversationID = try context.id("conversationId")
            try ConversationController.checkSameConversation(body.conversationId, as: conversationId)
            return JSONResponse(try await messages.markRead(conversationId, upTo: body.seq, by: identity))
        }
        routes.authenticated(.sendMessage) { request, context, identity in
            let body = try await request.decodeJSON(SendMessageRequest.self, context: context)
            let response = try await messages.send(body, from: identity)
            return JSONResponse(response, status: response.duplicate ? .ok : .created)
        }
    }

    /// The request frames of messages.
    var frameHandlers: [FrameHandler] {
        [
            .written(.send) { (body: SendMessageRequest, request) in
                try MessageFrames.ack(
                    try await messages.send(body, from: request.identity, origin: request.origin), id: request.id)
            },
            .result(.history) { (query: HistoryQuery, request) in
                try await messages.history(
                    query, in: try request.conversationId(query.conversationId), for: request.identity)
            },
            .result(.read) { (body: ReadRequest, request) in
                try await messages.markRead(
                    try request.conversationId(body.conversationId), upTo: body.seq, by: request.identity)
            },
        ]
    }
}
