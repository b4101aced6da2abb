import Hummingbird
import ParleyCore

/// Accounts, sessions and the caller's profile.
struct AccountController {
    let accounts: AccountService
    /// Told when a user changes who sees their presence.
    let presence: PresenceService

    func addRoutes(to routes: RouteRegistry) {
        routes.on(.register) { request, context in
            let body = try await request.decodeJSON(RegisterRequest.self, context: context)
            return JSONResponse(try await accounts.register(body, ip: context.remoteIP), status: .created)
        }
        routes.on(.startPasswordReset) { request, context in
            let body = try await request.decodeJSON(PasswordResetRequest.self, context: context)
            return JSONResponse(try await accounts.startPasswordReset(body, ip: context.remoteIP), status: .accepted)
        }
        routes.on(.confirmPasswordReset) { request, context in
            let body = try await request.decodeJSON(PasswordResetConfirmRequest.self, context: context)
            try await accounts.confirmPasswordReset(body, ip: context.remoteIP)
            return Response(status: .noContent)
        }
        routes.authenticated(.requestVerification) { request, context, identity in
            let body = try await request.decodeJSON(VerificationCodeRequest.self, context: context)
            return JSONResponse(
                try await accounts.verification.request(body, for: identity.userId, ip: context.remoteIP),
                status: .accepted)
        }
        routes.authenticated(.confirmVerification) { request, context, identity in
            let body = try await request.decodeJSON(VerificationConfirmRequest.self, context: context)
            return JSONResponse(
                try await accounts.verification.confirm(body, for: identity.userId, ip: context.remoteIP))
        }
        routes.on(.login) { request, context in
            let body = try await request.decodeJSON(LoginRequest.self, context: context)
            return switch try await accounts.login(body, ip: context.remoteIP) {
            case .session(let tokens):
                try JSONResponse(tokens, status: .created).response(from: request, context: context)
            case .secondFactor(let challenge):
                try JSONResponse(challenge, status: .accepted).response(from: request, context: context)
            }
        }
        routes.on(.secondFactor) { request, context in
            let body = try await request.decodeJSON(SecondFactorRequest.self, context: context)
            return JSONResponse(try await accounts.completeLogin(body, ip: context.remoteIP), status: .created)
        }
        routes.authenticated(.changePassword) { request, context, identity in
            let body = try await request.decodeJSON(ChangePasswordRequest.self, context: context)
            try await accounts.changePassword(body, by: identity, ip: context.remoteIP)
            return Response(status: .noContent)
        }
        routes.authenticated(.deleteAccount) { request, context, identity in
            let body = try await request.decodeJSON(DeleteAccountRequest.self, context: context)
            try await accounts.deleteAccount(body, by: identity, ip: context.remoteIP)
            return Response(status: .noContent)
        }
        routes.authenticated(.securityEvents) { request, _, identity in
            let limit = try request.uri.queryParameters.get("limit").map {
                guard let limit = Int($0), (1...SecurityAudit.maxPage).contains(limit) else {
                    throw ParleyError(
                        .invalidField, "'limit' must be a whole number from 1 to \(SecurityAudit.maxPage).")
                }
                return limit
            }
            return JSONResponse(
                SecurityEventList(
                    events: try await accounts.audit.events(of: identity.userId, limit: limit ?? SecurityAudit.maxPage))
            )
        }
        routes.authenticated(.getTwoFactor) { _, _, identity in
            JSONResponse(try await accounts.twoFactor.status(of: identity.userId))
        }
        routes.authenticated(.setUpTwoFactor) { _, _, identity in
            let account = try await accounts.account(of: identity)
            return JSONResponse(
                try await accounts.twoFactor.setUp(for: identity.userId, username: account.user.username))
        }
        routes.authenticated(.confirmTwoFactor) { request, context, identity in
            let body = try await request.decodeJSON(TwoFactorCodeRequest.self, context: context)
            return JSONResponse(
                try await accounts.twoFactor.confirm(body.code, for: identity.userId, ip: context.remoteIP))
        }
        routes.authenticated(.disableTwoFactor) { request, context, identity in
            let body = try await request.decodeJSON(TwoFactorCodeRequest.self, context: context)
            try await accounts.twoFactor.disable(body.code, for: identity.userId, ip: context.remoteIP)
            return Response(status: .noContent)
        }
        routes.on(.refresh) { request, context in
            let body = try await request.decodeJSON(RefreshRequest.self, context: context)
            return JSONResponse(try await accounts.refresh(body))
        }
        routes.authenticated(.logout) { _, context, identity in
            try await accounts.revoke(identity.sessionId, by: identity, ip: context.remoteIP)
            return Response(status: .noContent)
        }
        routes.authenticated(.listSessions) { _, _, identity in
            JSONResponse(SessionList(sessions: try await accounts.sessions(of: identity)))
        }
        routes.authenticated(.revokeSession) { _, context, identity in
            try await accounts.revoke(try context.id("sessionId"), by: identity, ip: context.remoteIP)
            return Response(status: .noContent)
        }
        routes.authenticated(.getMe) { _, _, identity in
            JSONResponse(try await accounts.account(of: identity))
        }
        routes.authenticated(.updateMe) { request, context, identity in
            let body = try await request.decodeJSON(ProfileUpdate.self, context: context)
            return JSONResponse(try await accounts.updateProfile(body, of: identity))
        }
        routes.authenticated(.getUser) { _, context, _ in
            JSONResponse(try await accounts.user(try context.id("userId")))
        }
        routes.authenticated(.getUserByUsername) { _, context, identity in
            JSONResponse(try await accounts.user(named: context.parameters.get("username") ?? "", for: identity))
        }
        routes.authenticated(.lookupUser) { request, _, identity in
            let query = request.uri.queryParameters
            return JSONResponse(
                try await accounts.lookup(
                    username: query.get("username"), email: query.get("email"), phone: query.get("phone"),
                    for: identity))
        }
        routes.authenticated(.searchUsers) { request, _, identity in
            JSONResponse(
                try await accounts.search(
                    request.uri.queryParameters.get("q"), cursor: request.uri.queryParameters.get("cursor"),
                    limit: try request.queryInteger("limit"), for: identity))
        }
        routes.authenticated(.getPrivacy) { _, _, identity in
            JSONResponse(try await accounts.privacy(of: identity))
        }
        routes.authenticated(.updatePrivacy) { request, context, identity in
            let body = try await request.decodeJSON(UpdatePrivacyRequest.self, context: context)
            let settings = try await accounts.updatePrivacy(body, of: identity)
            if body.presence != nil { await presence.visibilityChanged(of: identity.userId) }
            return JSONResponse(settings)
        }
    }
}
