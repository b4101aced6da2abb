import Foundation
import Hummingbird
import Logging
import NIOCore
import ParleyCore

/// Renders every failure as `{"error": {"code", "message"}}`: a ``ParleyError`` as itself,
/// Hummingbird's own errors (unknown route, body too large) by their status, and anything
/// unexpected as `internal_error` after logging it.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ParleyRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as ParleyError {
            return Self.render(error)
        } catch let error as RetryLaterError {
            var response = Self.render(error.error)
            response.headers[.retryAfter] = String(error.afterSeconds)
            return response
        } catch let error as HTTPError {
            let allowed = error.status == .notFound ? Endpoint.methods(servedAt: request.uri.path) : []
            guard allowed.isEmpty || allowed.contains(request.method.rawValue) else {
                var response = Self.render(
                    ParleyError(
                        .methodNotAllowed,
                        "\(request.method.rawValue) is not allowed on \(request.uri.path); use \(allowed.joined(separator: " or "))."
                    ))
                response.headers[.allow] = allowed.joined(separator: ", ")
                return response
            }
            return Self.render(Self.translate(error, request: request))
        } catch is NIOTooManyBytesError {
            return Self.render(Self.translate(HTTPError(.contentTooLarge), request: request))
        } catch {
            context.logger.error(
                "Unhandled error", metadata: ["error": "\(String(reflecting: error))", "path": "\(request.uri.path)"])
            return Self.render(ParleyError(.internalError, "The server failed to handle the request."))
        }
    }

    static func translate(_ error: HTTPError, request: Request) -> ParleyError {
        switch error.status {
        case .notFound:
            ParleyError(.notFound, "No route for \(request.method.rawValue) \(request.uri.path).")
        case .contentTooLarge:
            ParleyError(.payloadTooLarge, "The request body is larger than \(Limits.maxRequestBodyBytes) bytes.")
        case .methodNotAllowed:
            ParleyError(.methodNotAllowed, "\(request.method.rawValue) is not allowed on \(request.uri.path).")
        default:
            ParleyError(ErrorCode(rawValue: "http_\(error.status.code)"), error.body ?? error.status.reasonPhrase)
        }
    }

    static func render(_ error: ParleyError) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        let body = (try? JSONEncoder().encode(ErrorBody(error: error))) ?? Data()
        return Response(
            status: HTTPResponse.Status(code: error.code.httpStatus), headers: headers,
            body: .init(byteBuffer: ByteBuffer(data: body)))
    }
}
