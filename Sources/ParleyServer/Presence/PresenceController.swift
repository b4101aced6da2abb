import Hummingbird
import ParleyCore

/// Presence over HTTP; changes arrive on the WebSocket as `presence` signals.
struct PresenceController {
    let presence: PresenceService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.getPresence) { request, _, identity in
            JSONResponse(try await presence.presence(of: try Self.userIds(request), for: identity))
        }
    }

    /// `?userIds=1,2,3`: nil when absent.
    static func userIds(_ request: Request) throws -> [UserID]? {
        guard let text = request.uri.queryParameters.get("userIds") else { return nil }
        return try text.split(separator: ",", omittingEmptySubsequences: false).map {
            guard $0.allSatisfy({ $0.isASCII && $0.isWholeNumber }), let id = Int64($0), id > 0 else {
                throw ParleyError(.invalidField, "'userIds' must be user ids separated by commas.")
            }
            return UserID(id)
        }
    }
}
