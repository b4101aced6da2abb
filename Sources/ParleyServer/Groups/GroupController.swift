import Hummingbird
import ParleyCore

/// Group administration over HTTP (profile, members, roles, mutes, invite links, join
/// requests) and the WebSocket (`update_group`).
struct GroupController {
    let groups: GroupService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.updateGroup) { request, context, identity in
            let body = try await request.decodeJSON(UpdateGroupRequest.self, context: context)
            let id: ConversationID = try context.id("conversationId")
            try ConversationController.checkSameConversation(body.conversationId, as: id)
            return JSONResponse(try await groups.update(id, body, by: identity))
        }
        routes.authenticated(.addMembers) { request, context, identity in
            let body = try await request.decodeJSON(AddMembersRequest.self, context: context)
            return JSONResponse(
                try await groups.addMembers(body.userIds, to: try context.id("conversationId"), by: identity))
        }
        routes.authenticated(.updateMember) { request, context, identity in
            let body = try await request.decodeJSON(UpdateMemberRequest.self, context: context)
            return JSONResponse(
                try await groups.updateMember(
                    try context.id("userId"), of: try context.id("conversationId"), body, by: identity))
        }
        routes.authenticated(.removeMember) { _, context, identity in
            try await groups.removeMember(
                try context.id("userId"), from: try context.id("conversationId"), by: identity)
            return Response(status: .noContent)
        }
        routes.authenticated(.transferGroup) { request, context, identity in
            let body = try await request.decodeJSON(TransferGroupRequest.self, context: context)
            return JSONResponse(
                try await groups.transfer(try context.id("conversationId"), to: body.userId, by: identity))
        }
        routes.authenticated(.dissolveGroup) { _, context, identity in
            JSONResponse(try await groups.dissolve(try context.id("conversationId"), by: identity))
        }
        routes.authenticated(.createInviteLink) { request, context, identity in
            let body = try await request.decodeJSON(CreateInviteLinkRequest.self, context: context)
            return JSONResponse(
                try await groups.createLink(for: try context.id("conversationId"), body, by: identity), status: .created
            )
        }
        routes.authenticated(.listInviteLinks) { _, context, identity in
            JSONResponse(try await groups.links(of: try context.id("conversationId"), for: identity))
        }
        routes.authenticated(.revokeInviteLink) { _, context, identity in
            try await groups.revokeLink(
                context.parameters.get("code") ?? "", of: try context.id("conversationId"), by: identity)
            return Response(status: .noContent)
        }
        routes.authenticated(.previewInvite) { _, context, _ in
            JSONResponse(try await groups.preview(context.parameters.get("code") ?? ""))
        }
        routes.authenticated(.useInvite) { request, context, identity in
            let body = try await request.decodeJSON(UseInviteRequest.self, context: context)
            return JSONResponse(try await groups.useInvite(context.parameters.get("code") ?? "", body, by: identity))
        }
        routes.authenticated(.listJoinRequests) { _, context, identity in
            JSONResponse(try await groups.joinRequests(of: try context.id("conversationId"), for: identity))
        }
        routes.authenticated(.resolveJoinRequest) { request, context, identity in
            let body = try await request.decodeJSON(ResolveJoinRequest.self, context: context)
            return JSONResponse(
                try await groups.resolveRequest(
                    of: try context.id("userId"), to: try context.id("conversationId"), approve: body.approve,
                    by: identity))
        }
    }

    /// The request frames of group administration (`rename` is `update_group`'s earlier name).
    var frameHandlers: [FrameHandler] {
        [ClientFrameType.updateGroup, .rename].map { type in
            .result(type) { (body: UpdateGroupRequest, request) in
                try await groups.update(try request.conversationId(body.conversationId), body, by: request.identity)
            }
        }
    }
}
