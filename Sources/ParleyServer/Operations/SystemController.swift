import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// Liveness, readiness and the API description.
struct SystemController {
    let store: any ParleyStore
    let metrics: ServerMetrics

    struct Status: Codable, Sendable {
        var status: String
    }

    func addRoutes(to routes: RouteRegistry) {
        routes.on(.health) { _, _ in JSONResponse(Status(status: "ok")) }
        routes.on(.ready) { _, context in
            do {
                try await store.checkReady()
                return JSONResponse(Status(status: "ready"))
            } catch {
                context.logger.warning("Storage not ready", metadata: ["error": "\(error)"])
                throw ParleyError(.unavailable, "Storage is not reachable.")
            }
        }
        routes.on(.metrics) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.text)))
        }
        routes.on(.openAPI) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/yaml; charset=utf-8"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.text)))
        }
    }
}

/// The OpenAPI 3 description of the HTTP API, shipped as a resource of this module.
public enum OpenAPIDocument {
    public static let text: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return "" }
        return text
    }()
}
