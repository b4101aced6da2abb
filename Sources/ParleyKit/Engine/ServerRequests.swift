import ParleyCore

/// How the engine's parts ask the server something that has both a socket frame and an
/// HTTP route (sync, history, send, read): over the socket when it is up, over HTTP with
/// the session's token otherwise.
struct ServerRequests: Sendable {
    let connection: ConnectionManager
    let session: Session
    let timeout: Duration

    func callAsFunction<Payload: Codable & Sendable, Result: Decodable & Sendable>(
        _ type: ClientFrameType, _ payload: Payload, http endpoint: Endpoint,
        _ parameters: any CustomStringConvertible & Sendable...,
        query: [String: String] = [:], as result: Result.Type = Result.self
    ) async throws -> Result {
        do {
            return try await connection.call(type, payload, as: Result.self, timeout: timeout)
        } catch let error as TransportError where error.kind == .notConnected {
            let body: Payload? = endpoint.method == "GET" ? nil : payload
            guard let token = await session.accessToken() else {
                throw ParleyError(.unauthenticated, "Not logged in.")
            }
            return try await session.api.call(endpoint, parameters, query: query, body: body, token: token)
        }
    }
}
