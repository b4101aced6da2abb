import Hummingbird
import ParleyCore

/// What changed since a cursor, over HTTP and the WebSocket.
struct SyncController {
    let sync: SyncService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.sync) { request, _, identity in
            let limit = try request.queryInteger("limit").map { Int(clamping: $0) }
            let query = SyncRequest(cursor: request.uri.queryParameters.get("cursor"), limit: limit)
            return JSONResponse(try await sync.sync(query, for: identity))
        }
    }

    /// The request frames of sync.
    var frameHandlers: [FrameHandler] {
        [.result(.sync) { (body: SyncRequest, request) in try await sync.sync(body, for: request.identity) }]
    }
}
