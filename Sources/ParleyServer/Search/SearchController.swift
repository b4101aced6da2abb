import Hummingbird
import ParleyCore

/// Search over HTTP.
struct SearchController {
    let search: SearchService

    func addRoutes(to routes: RouteRegistry) {
        routes.authenticated(.searchMessages) { request, _, identity in
            JSONResponse(
                try await search.searchMessages(
                    MessageSearchQuery(parameters: try Self.parameters(of: request)), for: identity))
        }
        routes.authenticated(.searchContacts) { request, _, identity in
            JSONResponse(
                try await search.searchContacts(
                    NameSearchQuery(parameters: try Self.parameters(of: request)), for: identity))
        }
        routes.authenticated(.searchGroups) { request, _, identity in
            JSONResponse(
                try await search.searchGroups(
                    NameSearchQuery(parameters: try Self.parameters(of: request)), for: identity))
        }
    }

    /// The query string's parameters; `invalid_field` when one is given twice.
    private static func parameters(of request: Request) throws -> [String: String] {
        var parameters: [String: String] = [:]
        for (name, value) in request.uri.queryParameters {
            let name = String(name)
            guard parameters[name] == nil else {
                throw ParleyError(.invalidField, "Query parameter '\(name)' is given twice.")
            }
            parameters[name] = String(value)
        }
        return parameters
    }
}
