import Hummingbird
import ParleyCore

/// Forward, recall, edit, delete for me and receipts, over HTTP and the WebSocket.
struct MessageActionController {
    let actions: MessageActionService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.forwardMessage) { request, context, identity in
            let body = try await request.decodeJSON(ForwardMessageRequest.self, context: context)
            let response = try await actions.forward(body, from: identity)
            return JSONResponse(response, status: response.duplicate ? .ok : .created)
        }
        routes.authenticated(.recallMessage) { _, context, identity in
            JSONResponse(try await actions.recall(try context.id("messageId"), by: identity))
        }
        routes.authenticated(.editMessage) { request, context, identity in
            let body = try await request.decodeJSON(EditMessageRequest.self, context: context)
            let messageId: MessageID = try context.id("messageId")
            if let named = body.messageId, named != messageId {
                throw ParleyError(.invalidField, "'messageId' in the body differs from the path.")
            }
            return JSONResponse(try await actions.edit(messageId, body, by: identity))
        }
        routes.authenticated(.deleteMessages) { request, context, identity in
            let body = try await request.decodeJSON(DeleteMessagesRequest.self, context: context)
            return JSONResponse(try await actions.delete(body, in: try context.id("conversationId"), by: identity))
        }
        routes.authenticated(.markDelivered) { request, context, identity in
            let body = try await request.decodeJSON(ReadRequest.self, context: context)
            let conversationId: ConversationID = try context.id("conversationId")
            try ConversationController.checkSameConversation(body.conversationId, as: conversationId)
            return JSONResponse(try await actions.markDelivered(conversationId, upTo: body.seq, by: identity))
        }
        routes.authenticated(.receipts) { _, context, identity in
            JSONResponse(try await actions.receipts(of: try context.id("conversationId"), for: identity))
        }
        routes.authenticated(.messageReaders) { _, context, identity in
            JSONResponse(
                try await actions.readers(
                    of: try context.positiveInteger("seq"), in: try context.id("conversationId"), for: identity))
        }
    }

    /// The request frames of message actions.
    var frameHandlers: [FrameHandler] {
        [
            .written(.forward) { (body: ForwardMessageRequest, request) in
                try MessageFrames.ack(
                    try await actions.forward(body, from: request.identity, origin: request.origin), id: request.id)
            },
            .result(.delivered) { (body: ReadRequest, request) in
                try await actions.markDelivered(
                    try request.conversationId(body.conversationId), upTo: body.seq, by: request.identity)
            },
            .result(.recall) { (body: RecallRequest, request) in
                try await actions.recall(body.messageId, by: request.identity)
            },
            .result(.edit) { (body: EditMessageRequest, request) in
                guard let messageId = body.messageId else {
                    throw ParleyError(.missingField, "Missing field 'payload.messageId'.")
                }
                return try await actions.edit(messageId, body, by: request.identity)
            },
        ]
    }
}
