import Foundation
import ParleyCore

/// The server's HTTP API, over an ``HTTPTransport``, using the shared ``Endpoint`` table.
public struct APIClient: Sendable {
    public let baseURL: String
    let http: any HTTPTransport

    public init(baseURL: String, http: any HTTPTransport) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.http = http
    }

    /// The WebSocket URL of the same server.
    public var webSocketURL: String {
        let scheme = baseURL.hasPrefix("https://") ? "wss://" : "ws://"
        let rest = baseURL.split(separator: "://", maxSplits: 1).last.map(String.init) ?? baseURL
        return scheme + rest + Endpoint.webSocket.path
    }

    /// Calls `endpoint` with path parameters, query and JSON body; throws the server's
    /// ``ParleyError`` or a ``TransportError``.
    public func call<Response: Decodable>(
        _ endpoint: Endpoint, _ parameters: [any CustomStringConvertible & Sendable] = [],
        query: [String: String] = [:],
        body: (some Encodable)? = Optional<Empty>.none, token: String? = nil, as type: Response.Type = Response.self
    ) async throws -> Response {
        var path = baseURL + endpoint.path(substituting: parameters.map { $0 as any CustomStringConvertible })
        if !query.isEmpty {
            path +=
                "?"
                + query.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.escape($0.value))" }.joined(separator: "&")
        }
        var headers = ["Accept": "application/json"]
        var data: Data?
        if let body {
            headers["Content-Type"] = "application/json"
            data = try JSONEncoder().encode(body)
        }
        let responseBody = try await perform(endpoint.method, url: path, headers: headers, body: data, token: token)
        return try JSONDecoder().decode(Response.self, from: responseBody.isEmpty ? Data("{}".utf8) : responseBody)
    }

    /// Sends raw bytes to `endpoint` (a chunk) or fetches raw bytes (a file), with extra
    /// headers; answers the body's bytes. Throws the server's ``ParleyError`` or a
    /// ``TransportError``.
    public func transfer(
        _ endpoint: Endpoint, _ parameters: [any CustomStringConvertible & Sendable],
        headers extra: [String: String] = [:],
        body: Data? = nil, token: String?
    ) async throws -> Data {
        let url = baseURL + endpoint.path(substituting: parameters.map { $0 as any CustomStringConvertible })
        var headers = extra
        if body != nil { headers["Content-Type"] = "application/octet-stream" }
        return try await perform(endpoint.method, url: url, headers: headers, body: body, token: token)
    }

    /// One request: the token added, transport failures told apart, an error status thrown as
    /// the server's ``ParleyError``; answers the body of a success.
    private func perform(_ method: String, url: String, headers: [String: String], body: Data?, token: String?)
        async throws -> Data
    {
        var headers = headers
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let status: Int
        let responseBody: Data
        do {
            (status, responseBody) = try await http.perform(method: method, url: url, headers: headers, body: body)
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.unreachable, "Cannot reach \(baseURL): \(error)")
        }
        guard (200..<300).contains(status) else {
            if let error = try? JSONDecoder().decode(ErrorBody.self, from: responseBody).error { throw error }
            throw TransportError(.unreachable, "HTTP \(status) from \(baseURL)")
        }
        return responseBody
    }

    /// RFC 3986's unreserved characters, ASCII only (Foundation's `.alphanumerics` holds every
    /// script's letters, which would go into the URL unencoded).
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    /// An empty JSON object, for bodies and answers with nothing in them.
    public struct Empty: Codable, Sendable {
        public init() {}
    }
}
