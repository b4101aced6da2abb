import Hummingbird
import ParleyCore

/// A user's conversation settings over HTTP.
struct SettingsController {
    let settings: SettingsService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.updateSettings) { request, context, identity in
            let body = try await request.decodeJSON(UpdateSettingsRequest.self, context: context)
            return JSONResponse(try await settings.update(body, of: try context.id("conversationId"), by: identity))
        }
    }
}
