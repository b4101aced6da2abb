import Foundation
import Hummingbird
import ParleyCore

/// A JSON response body with a status.
struct JSONResponse<Value: Encodable & Sendable>: ResponseGenerator {
    var value: Value
    var status: HTTPResponse.Status = .ok

    init(_ value: Value, status: HTTPResponse.Status = .ok) {
        self.value = value
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        if let writable = value as? any JSONWritable {
            return Response(
                status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try writable.jsonBytes())))
        }
        return Response(
            status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(data: try JSONEncoder().encode(value)))
        )
    }
}

extension Request {
    /// Decodes a request body strictly: malformed JSON, missing or mistyped fields and
    /// unknown fields each become a ``ParleyError`` naming the problem.
    func decodeJSON<Value: StrictDecodable>(_ type: Value.Type, context: ParleyRequestContext) async throws -> Value {
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        do {
            return try JSONText.decodeRequest(Strict<Value>.self, from: Data(buffer: buffer)).value
        } catch {
            throw ParleyError(decoding: error)
        }
    }

    /// An optional integer query parameter; a present but malformed one is an error.
    func queryInteger(_ name: String) throws -> Int64? {
        guard let text = uri.queryParameters.get(name) else { return nil }
        guard let value = Int64(text) else {
            throw ParleyError(.invalidField, "Query parameter '\(name)' must be an integer.")
        }
        return value
    }

    /// The bearer token of the `Authorization` header, if any.
    var bearerToken: String? {
        guard let header = headers[.authorization], header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
    }
}

extension ParleyRequestContext {
    /// A path parameter that must be a positive integer id.
    func id<Tag>(_ name: String, as type: Identifier<Tag>.Type = Identifier<Tag>.self) throws -> Identifier<Tag> {
        Identifier(try positiveInteger(name))
    }

    /// A path parameter that must be a positive integer (an id or a seq).
    func positiveInteger(_ name: String) throws -> Int64 {
        guard let text = parameters.get(name), let value = Int64(text), value > 0 else {
            throw ParleyError(.invalidField, "Path parameter '\(name)' must be a positive integer.")
        }
        return value
    }
}
