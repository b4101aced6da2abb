import Hummingbird
import ParleyCore

/// Conversations, their members, history, read state, sending and sync over HTTP.
struct ConversationController {
    let messaging: MessagingService

    /// A page of `GET /v1/conversations`; `nextCursor` is absent on the last page.
    struct ConversationList: Codable, Sendable {
        var conversations: [ConversationSummary]
        var nextCursor: String?
    }

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.listConversations) { request, _, identity in
            let page = try await messaging.conversations(
                for: identity, cursor: request.uri.queryParameters.get("cursor"),
                limit: try request.queryInteger("limit").map { Int(clamping: $0) })
            return JSONResponse(ConversationList(conversations: page.conversations, nextCursor: page.nextCursor))
        }
        routes.authenticated(.createGroup) { request, context, identity in
            let body = try await request.decodeJSON(CreateGroupRequest.self, context: context)
            return JSONResponse(try await messaging.createGroup(body, by: identity), status: .created)
        }
        routes.authenticated(.openDirect) { request, context, identity in
            let body = try await request.decodeJSON(OpenDirectRequest.self, context: context)
            return JSONResponse(try await messaging.openDirect(with: body.userId, by: identity))
        }
        routes.authenticated(.getConversation) { _, context, identity in
            JSONResponse(try await messaging.conversation(try context.id("conversationId"), for: identity))
        }
        routes.authenticated(.addMembers) { request, context, identity in
            let body = try await request.decodeJSON(AddMembersRequest.self, context: context)
            return JSONResponse(
                try await messaging.addMembers(body.userIds, to: try context.id("conversationId"), by: identity))
        }
        routes.authenticated(.history) { request, context, identity in
            let query = HistoryQuery(
                before: try request.queryInteger("before"), after: try request.queryInteger("after"),
                limit: try request.queryInteger("limit").map { Int(clamping: $0) })
            return JSONResponse(try await messaging.history(query, in: try context.id("conversationId"), for: identity))
        }
        routes.authenticated(.markRead) { request, context, identity in
            let body = try await request.decodeJSON(ReadRequest.self, context: context)
            let conversationId: ConversationID = try context.id("conversationId")
            if let named = body.conversationId, named != conversationId {
                throw ParleyError(.invalidField, "'conversationId' in the body differs from the path.")
            }
            return JSONResponse(try await messaging.markRead(conversationId, upTo: body.seq, by: identity))
        }
        routes.authenticated(.sendMessage) { request, context, identity in
            let body = try await request.decodeJSON(SendMessageRequest.self, context: context)
            let response = try await messaging.send(body, from: identity)
            return JSONResponse(response, status: response.duplicate ? .ok : .created)
        }
        routes.authenticated(.sync) { request, _, identity in
            let limit = try request.queryInteger("limit").map { Int(clamping: $0) }
            let sync = SyncRequest(cursor: request.uri.queryParameters.get("cursor"), limit: limit)
            return JSONResponse(try await messaging.sync(sync, for: identity))
        }
    }
}
