import Hummingbird
import ParleyCore

/// Friend requests, friends, friend groups and blocks over HTTP.
struct ContactController {
    let contacts: ContactService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.listFriendRequests) { _, _, identity in
            JSONResponse(try await contacts.requests(of: identity))
        }
        routes.authenticated(.sendFriendRequest) { request, context, identity in
            let body = try await request.decodeJSON(SendFriendRequest.self, context: context)
            return JSONResponse(try await contacts.sendRequest(body, by: identity))
        }
        routes.authenticated(.answerFriendRequest) { request, context, identity in
            let body = try await request.decodeJSON(AnswerFriendRequest.self, context: context)
            return JSONResponse(try await contacts.answer(try context.id("requestId"), body, by: identity))
        }
        routes.authenticated(.listContacts) { request, _, identity in
            let group = try request.queryInteger("group").map { FriendGroupID($0) }
            return JSONResponse(try await contacts.contacts(of: identity, in: group))
        }
        routes.authenticated(.updateContact) { request, context, identity in
            let body = try await request.decodeJSON(UpdateContactRequest.self, context: context)
            return JSONResponse(try await contacts.update(try context.id("userId"), body, by: identity))
        }
        routes.authenticated(.removeContact) { _, context, identity in
            try await contacts.remove(try context.id("userId"), by: identity)
            return Response(status: .noContent)
        }
        routes.authenticated(.listBlocks) { _, _, identity in
            JSONResponse(try await contacts.blocks(of: identity))
        }
        routes.authenticated(.blockUser) { _, context, identity in
            JSONResponse(try await contacts.block(try context.id("userId"), by: identity))
        }
        routes.authenticated(.unblockUser) { _, context, identity in
            try await contacts.unblock(try context.id("userId"), by: identity)
            return Response(status: .noContent)
        }
        routes.authenticated(.recommendContacts) { request, _, identity in
            JSONResponse(try await contacts.recommendations(for: identity, limit: try request.queryInteger("limit")))
        }
        routes.authenticated(.listFriendGroups) { _, _, identity in
            JSONResponse(try await contacts.friendGroups(of: identity))
        }
        routes.authenticated(.createFriendGroup) { request, context, identity in
            let body = try await request.decodeJSON(FriendGroupRequest.self, context: context)
            return JSONResponse(try await contacts.createFriendGroup(body, by: identity), status: .created)
        }
        routes.authenticated(.renameFriendGroup) { request, context, identity in
            let body = try await request.decodeJSON(FriendGroupRequest.self, context: context)
            return JSONResponse(try await contacts.renameFriendGroup(try context.id("groupId"), body, by: identity))
        }
        routes.authenticated(.deleteFriendGroup) { _, context, identity in
            try await contacts.deleteFriendGroup(try context.id("groupId"), by: identity)
            return Response(status: .noContent)
        }
    }
}
