/// Every HTTP operation of the API, defined once for the server (which registers exactly
/// these), the OpenAPI document (which a test checks against them) and clients.
public enum Endpoint: String, CaseIterable, Sendable {
    case health, ready, openAPI, metrics
    case register, login, refresh, logout, listSessions, revokeSession, secondFactor
    case getTwoFactor, setUpTwoFactor, confirmTwoFactor, disableTwoFactor, changePassword, securityEvents
    case requestVerification, confirmVerification, startPasswordReset, confirmPasswordReset, deleteAccount
    case getMe, updateMe, getUser, getUserByUsername, getPrivacy, updatePrivacy, lookupUser, searchUsers
    case listConversations, createGroup, openDirect, getConversation, updateGroup, addMembers
    case updateMember, removeMember, transferGroup, dissolveGroup
    case createInviteLink, listInviteLinks, revokeInviteLink, previewInvite, useInvite
    case listJoinRequests, resolveJoinRequest
    case history, markRead, sendMessage, updateSettings
    case forwardMessage, editMessage, recallMessage, deleteMessages, markDelivered, receipts, messageReaders
    case listFriendRequests, sendFriendRequest, answerFriendRequest
    case listContacts, updateContact, removeContact, listBlocks, blockUser, unblockUser
    case listFriendGroups, createFriendGroup, renameFriendGroup, deleteFriendGroup, recommendContacts
    case getPresence, getNotificationSettings, updateNotificationSettings, registerPushToken, removePushToken
    case searchMessages, searchContacts, searchGroups
    case startUpload, getUpload, putChunk, completeUpload, cancelUpload, getFile, getFileInfo, createFileLink
    case sync, webSocket

    /// The HTTP method, upper-case.
    public var method: String {
        switch self {
        case .register, .login, .refresh, .createGroup, .openDirect, .addMembers, .markRead, .sendMessage,
            .transferGroup, .dissolveGroup, .createInviteLink, .useInvite, .resolveJoinRequest, .forwardMessage,
            .recallMessage, .deleteMessages, .markDelivered, .sendFriendRequest, .answerFriendRequest,
            .createFriendGroup, .startUpload, .completeUpload, .createFileLink, .secondFactor, .setUpTwoFactor,
            .confirmTwoFactor, .disableTwoFactor, .changePassword, .requestVerification, .confirmVerification,
            .startPasswordReset, .confirmPasswordReset, .deleteAccount:
            "POST"
        case .logout, .revokeSession, .removeMember, .revokeInviteLink, .removeContact, .unblockUser,
            .deleteFriendGroup, .removePushToken, .cancelUpload:
            "DELETE"
        case .updateMe, .updatePrivacy, .updateGroup, .updateMember, .updateSettings, .editMessage, .updateContact,
            .renameFriendGroup, .updateNotificationSettings:
            "PATCH"
        case .blockUser, .registerPushToken, .putChunk: "PUT"
        default: "GET"
        }
    }

    /// The path, with parameters in OpenAPI form: `/v1/conversations/{conversationId}`.
    public var path: String {
        switch self {
        case .health: "/health"
        case .ready: "/ready"
        case .openAPI: "/openapi.yaml"
        case .metrics: "/metrics"
        case .register: "/v1/accounts"
        case .login, .listSessions: "/v1/sessions"
        case .refresh: "/v1/sessions/refresh"
        case .logout: "/v1/session"
        case .revokeSession: "/v1/sessions/{sessionId}"
        case .secondFactor: "/v1/sessions/second-factor"
        case .getTwoFactor, .setUpTwoFactor: "/v1/me/two-factor"
        case .confirmTwoFactor: "/v1/me/two-factor/confirm"
        case .disableTwoFactor: "/v1/me/two-factor/disable"
        case .changePassword: "/v1/me/password"
        case .securityEvents: "/v1/me/security-events"
        case .requestVerification: "/v1/me/verification"
        case .confirmVerification: "/v1/me/verification/confirm"
        case .startPasswordReset: "/v1/password-reset"
        case .confirmPasswordReset: "/v1/password-reset/confirm"
        case .deleteAccount: "/v1/me/delete"
        case .getMe, .updateMe: "/v1/me"
        case .getUser: "/v1/users/{userId}"
        case .getUserByUsername: "/v1/users/by-username/{username}"
        case .getPrivacy, .updatePrivacy: "/v1/me/privacy"
        case .lookupUser: "/v1/users/lookup"
        case .searchUsers: "/v1/users/search"
        case .listConversations, .createGroup: "/v1/conversations"
        case .openDirect: "/v1/conversations/direct"
        case .getConversation, .updateGroup: "/v1/conversations/{conversationId}"
        case .addMembers: "/v1/conversations/{conversationId}/members"
        case .updateMember, .removeMember: "/v1/conversations/{conversationId}/members/{userId}"
        case .transferGroup: "/v1/conversations/{conversationId}/transfer"
        case .dissolveGroup: "/v1/conversations/{conversationId}/dissolve"
        case .createInviteLink, .listInviteLinks: "/v1/conversations/{conversationId}/links"
        case .revokeInviteLink: "/v1/conversations/{conversationId}/links/{code}"
        case .previewInvite, .useInvite: "/v1/invites/{code}"
        case .listJoinRequests: "/v1/conversations/{conversationId}/join-requests"
        case .resolveJoinRequest: "/v1/conversations/{conversationId}/join-requests/{userId}"
        case .history: "/v1/conversations/{conversationId}/messages"
        case .markRead: "/v1/conversations/{conversationId}/read"
        case .updateSettings: "/v1/conversations/{conversationId}/settings"
        case .sendMessage: "/v1/messages"
        case .forwardMessage: "/v1/messages/forward"
        case .editMessage: "/v1/messages/{messageId}"
        case .recallMessage: "/v1/messages/{messageId}/recall"
        case .deleteMessages: "/v1/conversations/{conversationId}/messages/delete"
        case .markDelivered: "/v1/conversations/{conversationId}/delivered"
        case .receipts: "/v1/conversations/{conversationId}/receipts"
        case .messageReaders: "/v1/conversations/{conversationId}/messages/{seq}/readers"
        case .listFriendRequests, .sendFriendRequest: "/v1/friend-requests"
        case .answerFriendRequest: "/v1/friend-requests/{requestId}"
        case .listContacts: "/v1/contacts"
        case .recommendContacts: "/v1/contacts/recommendations"
        case .updateContact, .removeContact: "/v1/contacts/{userId}"
        case .listBlocks: "/v1/blocks"
        case .blockUser, .unblockUser: "/v1/blocks/{userId}"
        case .listFriendGroups, .createFriendGroup: "/v1/friend-groups"
        case .renameFriendGroup, .deleteFriendGroup: "/v1/friend-groups/{groupId}"
        case .getPresence: "/v1/presence"
        case .searchMessages: "/v1/search/messages"
        case .searchContacts: "/v1/search/contacts"
        case .searchGroups: "/v1/search/groups"
        case .getNotificationSettings, .updateNotificationSettings: "/v1/me/notifications"
        case .registerPushToken, .removePushToken: "/v1/me/push-token"
        case .startUpload: "/v1/uploads"
        case .getUpload, .cancelUpload: "/v1/uploads/{uploadId}"
        case .putChunk: "/v1/uploads/{uploadId}/chunks/{offset}"
        case .completeUpload: "/v1/uploads/{uploadId}/complete"
        case .getFile: "/v1/files/{fileId}"
        case .getFileInfo: "/v1/files/{fileId}/info"
        case .createFileLink: "/v1/files/{fileId}/links"
        case .sync: "/v1/sync"
        case .webSocket: "/v1/ws"
        }
    }

    /// Whether the request must carry `Authorization: Bearer <access token>`.
    public var requiresAuthentication: Bool {
        switch self {
        // A file is read with a token or with a signed link (checked by its handler).
        case .health, .ready, .openAPI, .metrics, .register, .login, .refresh, .secondFactor, .webSocket, .getFile,
            .startPasswordReset, .confirmPasswordReset:
            false
        default: true
        }
    }

    /// The methods served at a concrete path (`/v1/conversations/7`), sorted; empty when no
    /// endpoint has that path. A request with another method gets 405 and these in `Allow`.
    /// A literal segment beats a parameter, as in the router: `/v1/conversations/direct` is
    /// that path's alone, not a conversation id.
    public static func methods(servedAt concretePath: String) -> [String] {
        let segments = concretePath.split(separator: "/", omittingEmptySubsequences: false)
        let matches: [(endpoint: Endpoint, literals: Int)] = allCases.compactMap { endpoint in
            let template = endpoint.path.split(separator: "/", omittingEmptySubsequences: false)
            guard template.count == segments.count,
                zip(template, segments).allSatisfy({ $0.hasPrefix("{") ? !$1.isEmpty : $0 == $1 })
            else { return nil }
            return (endpoint, template.filter { !$0.hasPrefix("{") }.count)
        }
        let mostLiteral = matches.map(\.literals).max()
        return Set(matches.filter { $0.literals == mostLiteral }.map(\.endpoint.method)).sorted()
    }

    /// The path with `values` substituted for its parameters, in order.
    public func path(_ values: any CustomStringConvertible...) -> String {
        path(substituting: values)
    }

    /// The path with `values` substituted for its parameters, in order.
    public func path(substituting values: [any CustomStringConvertible]) -> String {
        var result = ""
        var remaining = values[...]
        var inParameter = false
        for character in path {
            if character == "{" {
                inParameter = true
                result += remaining.popFirst().map { String(describing: $0) } ?? ""
            } else if character == "}" {
                inParameter = false
            } else if !inParameter {
                result.append(character)
            }
        }
        return result
    }
}
