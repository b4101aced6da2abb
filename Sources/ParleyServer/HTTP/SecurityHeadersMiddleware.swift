import HTTPTypes
import Hummingbird

/// Puts the security headers on every response (errors included) and answers cross-origin
/// requests only from the origins the operator allowed (`--cors-origin`; none by default,
/// so no browser page elsewhere may call the API).
///
/// Hummingbird's `CORSMiddleware` takes its list of origins as a variadic argument only, so
/// an allow-list read from the command line cannot be handed to it; these few rules are
/// written here instead.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = ParleyRequestContext

    /// Origins (`https://chat.example.com`) whose pages may call the API.
    let allowedOrigins: Set<String>
    /// Whether the listener uses TLS: then browsers are told to use nothing else (HSTS).
    let usesTLS: Bool

    static let allowedMethods = "GET, POST, PUT, PATCH, DELETE"
    static let allowedHeaders = "Authorization, Content-Type, Content-Digest, Range, If-None-Match"
    static let exposedHeaders = "Retry-After, Content-Range, Content-Disposition, ETag, Allow"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let origin = request.headers[.origin].flatMap { allowedOrigins.contains($0) ? $0 : nil }
        var response: Response
        if let origin, request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            response = Response(status: .noContent)
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlAllowMethods] = Self.allowedMethods
            response.headers[.accessControlAllowHeaders] = Self.allowedHeaders
            response.headers[.accessControlMaxAge] = "600"
        } else {
            response = try await next(request, context)
            if let origin {
                response.headers[.accessControlAllowOrigin] = origin
                response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
            }
        }
        if !allowedOrigins.isEmpty { response.headers[.vary] = "Origin" }
        addSecurityHeaders(to: &response.headers)
        return response
    }

    private func addSecurityHeaders(to headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[.xFrameOptions] = "DENY"
        headers[.referrerPolicy] = "no-referrer"
        // API answers are data, never pages: nothing in them may load or run, and no page
        // may frame them. A handler that set its own policy (file downloads) keeps it.
        if headers[.contentSecurityPolicy] == nil {
            headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        }
        if usesTLS { headers[.strictTransportSecurity] = "max-age=63072000; includeSubDomains" }
    }
}

extension HTTPField.Name {
    fileprivate static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    fileprivate static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
