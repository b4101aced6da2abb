import Hummingbird
import ParleyCore

/// Listing, creating and reading conversations over HTTP (administration is ``GroupController``'s).
struct ConversationController {
    let conversations: ConversationService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.listConversations) { request, _, identity in
            let page = try await conversations.conversations(
                for: identity, cursor: request.uri.queryParameters.get("cursor"),
                limit: try request.queryInteger("limit").map { Int(clamping: $0) })
            return JSONResponse(ConversationPage(conversations: page.conversations, nextCursor: page.nextCursor))
        }
        routes.authenticated(.createGroup) { request, context, identity in
            let body = try await request.decodeJSON(CreateGroupRequest.self, context: context)
            return JSONResponse(try await conversations.createGroup(body, by: identity), status: .created)
        }
        routes.authenticated(.openDirect) { request, context, identity in
            let body = try await request.decodeJSON(OpenDirectRequest.self, context: context)
            return JSONResponse(try await conversations.openDirect(with: body.userId, by: identity))
        }
        routes.authenticated(.getConversation) { _, context, identity in
            JSONResponse(try await conversations.conversation(try context.id("conversationId"), for: identity))
        }
    }

    /// A body may repeat the conversation of the path, but not name another.
    static func checkSameConversation(_ named: ConversationID?, as path: ConversationID) throws {
        if let named, named != path {
            throw ParleyError(.invalidField, "'conversationId' in the body differs from the path.")
        }
    }
}
