import Foundation
import Hummingbird
import ParleyCore
import Synchronization

/// Registers handlers for ``Endpoint``s on the router and remembers which were registered,
/// so a test can check the OpenAPI document covers exactly what the server serves.
///
/// Authenticated endpoints get the caller's ``Identity``; a missing or bad token never
/// reaches their handler.
public struct RouteRegistry {
    let router: Router<ParleyRequestContext>
    let accounts: AccountService
    private let registered = RegisteredEndpoints()

    init(router: Router<ParleyRequestContext>, accounts: AccountService) {
        self.router = router
        self.accounts = accounts
    }

    /// The endpoints registered so far.
    public var endpoints: Set<Endpoint> { registered.all }

    /// Records an endpoint served by another router (the WebSocket upgrade).
    func markServedElsewhere(_ endpoint: Endpoint) {
        registered.insert(endpoint)
    }

    /// Registers a public endpoint.
    func on<Output: ResponseGenerator>(
        _ endpoint: Endpoint, _ handler: @escaping @Sendable (Request, ParleyRequestContext) async throws -> Output
    ) {
        precondition(!endpoint.requiresAuthentication, "\(endpoint) needs authentication")
        registered.insert(endpoint)
        router.on(RouterPath(endpoint.routerPath), method: HTTPRequest.Method(rawValue: endpoint.method)!, use: handler)
    }

    /// Registers an endpoint that needs `Authorization: Bearer <access token>`.
    func authenticated<Output: ResponseGenerator>(
        _ endpoint: Endpoint,
        _ handler: @escaping @Sendable (Request, ParleyRequestContext, Identity) async throws -> Output
    ) {
        precondition(endpoint.requiresAuthentication, "\(endpoint) is public")
        registered.insert(endpoint)
        let accounts = self.accounts
        router.on(RouterPath(endpoint.routerPath), method: HTTPRequest.Method(rawValue: endpoint.method)!) {
            request, context in
            guard let token = request.bearerToken else {
                throw ParleyError(
                    .unauthenticated, "This request needs an 'Authorization: Bearer <access token>' header.")
            }
            let identity = try await accounts.authenticate(accessToken: token)
            return try await handler(request, context, identity)
        }
    }
}

/// The set behind ``RouteRegistry/endpoints``.
private final class RegisteredEndpoints: Sendable {
    private let endpoints = Mutex<Set<Endpoint>>([])
    func insert(_ endpoint: Endpoint) { endpoints.withLock { _ = $0.insert(endpoint) } }
    var all: Set<Endpoint> { endpoints.withLock { $0 } }
}

extension Endpoint {
    /// The path in Hummingbird's form: `/v1/conversations/:conversationId`.
    var routerPath: String {
        path.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: "")
    }
}
