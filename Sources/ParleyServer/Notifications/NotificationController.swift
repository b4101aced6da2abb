import Hummingbird
import ParleyCore

/// Notification preferences and push tokens over HTTP.
struct NotificationController {
    let notifications: NotificationService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.getNotificationSettings) { _, _, identity in
            JSONResponse(try await notifications.settings(of: identity))
        }
        routes.authenticated(.updateNotificationSettings) { request, context, identity in
            let body = try await request.decodeJSON(UpdateNotificationSettingsRequest.self, context: context)
            return JSONResponse(try await notifications.update(body, of: identity))
        }
        routes.authenticated(.registerPushToken) { request, context, identity in
            let body = try await request.decodeJSON(RegisterPushTokenRequest.self, context: context)
            return JSONResponse(try await notifications.register(body, by: identity))
        }
        routes.authenticated(.removePushToken) { _, _, identity in
            try await notifications.removeToken(of: identity)
            return Response(status: .noContent)
        }
    }
}
