import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ParleyCore
import ParleyServer
import ParleyTesting

/// Runs the real Parley application in-process on a free loopback port for the duration of
/// `body`, with a fresh data directory unless one is given (to test restarts).
///
/// Not HummingbirdTesting's `.live` framework: its client gives up on a request after 20 s,
/// which a loaded CI machine has reached (twelve pipelined logins on one connection), and
/// its server's graceful shutdown has no end. Here a request may take ``testRequestTimeout``,
/// and the server stops as ``InProcessServer/stop()`` says.
func withServer<Value: Sendable>(
    dataDirectory: String? = nil,
    clock: WallClock = .system,
    configure: (inout ServerConfiguration) -> Void = { _ in },
    logger given: Logger? = nil,
    codes: (any CodeSender)? = nil,
    _ body: @Sendable (TestAPI) async throws -> Value
) async throws -> Value {
    var logger = Logger(label: "parley-test")
    logger.logLevel =
        ProcessInfo.processInfo.environment["PARLEY_TEST_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .critical
    let server = try await InProcessServer.start(
        dataDirectory: dataDirectory, clock: clock, logger: given ?? logger, codes: codes
    ) {
        // The test client does not replace a keep-alive connection the server closed as
        // idle, and a slow test (PostgreSQL on a loaded machine) can leave one unused for a
        // minute.
        $0.idleTimeout = .seconds(3600)
        configure(&$0)
    }
    let client = TestClient(host: "127.0.0.1", port: server.port, configuration: .init(timeout: testRequestTimeout))
    client.connect()
    let result: Result<Value, any Error>
    do {
        result = .success(try await body(TestAPI(client: client, port: server.port)))
    } catch {
        result = .failure(error)
    }
    try? await client.shutdown()
    await server.stop()
    return try result.get()
}

/// How long one request of ``TestAPI`` may take: a hang guard only.
let testRequestTimeout: Duration = .seconds(90)

/// A failed API call: the HTTP status and the error body.
struct APIFailure: Error, CustomStringConvertible {
    let status: Int
    let error: ParleyError
    var description: String { "HTTP \(status) \(error)" }
}

/// A signed-in user: their id and access token.
struct TestUser: Sendable {
    let id: UserID
    let username: String
    let token: String
    let sessionId: SessionID
}

/// HTTP access to the server under test, over a real socket.
struct TestAPI: Sendable {
    let client: TestClient
    let port: Int

    var webSocketURL: String { "ws://127.0.0.1:\(port)/v1/ws" }

    /// Sends a raw body and returns the status, body text and headers.
    func raw(_ method: HTTPRequest.Method, _ path: String, body: String? = nil, token: String? = nil) async throws
        -> (status: Int, body: String, headers: HTTPFields)
    {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = "application/json" }
        let response = try await execute(path, method, headers, body.map { ByteBuffer(string: $0) })
        return (response.status.code, String(buffer: response.body ?? ByteBuffer()), response.headers)
    }

    /// Polls `/metrics` until it holds `line`; false when `timeout` passed first (a hang guard
    /// for a failure, not a figure: the metric is what is asserted).
    func metricsShow(_ line: String, within timeout: Duration = .seconds(60)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await raw(.get, "/metrics").body.contains(line) { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Sends raw bytes with extra headers; returns the status, body bytes and headers.
    func bytes(
        _ method: HTTPRequest.Method, _ path: String, body: ByteBuffer? = nil, headers extra: HTTPFields = [:],
        token: String? = nil
    ) async throws -> (status: Int, body: ByteBuffer, headers: HTTPFields) {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await execute(path, method, headers, body)
        return (response.status.code, response.body ?? ByteBuffer(), response.headers)
    }

    private func execute(_ path: String, _ method: HTTPRequest.Method, _ headers: HTTPFields, _ body: ByteBuffer?)
        async throws -> TestClient.Response
    {
        var headers = headers
        headers[.connection] = "keep-alive"
        return try await client.execute(
            TestClient.Request(path, method: method, authority: "localhost", headers: headers, body: body))
    }

    /// Sends `body` as JSON and decodes the answer, throwing ``APIFailure`` for an error status.
    func call<Response: Decodable>(
        _ method: HTTPRequest.Method, _ path: String, _ body: (some Encodable)? = EmptyBody?.none, token: String? = nil,
        as type: Response.Type = Response.self
    ) async throws -> Response {
        let text = try body.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let (status, responseBody, _) = try await raw(method, path, body: text, token: token)
        guard (200..<300).contains(status) else {
            throw APIFailure(
                status: status,
                error: (try? decodeJSON(ErrorBody.self, responseBody).error)
                    ?? ParleyError(.internalError, responseBody))
        }
        return try decodeJSON(Response.self, responseBody.isEmpty ? "{}" : responseBody)
    }

    /// Registers and logs in a user.
    func signUp(_ username: String, password: String = "Passw0rd!", device: String = "test") async throws -> TestUser {
        let _: Account = try await call(.post, "/v1/accounts", RegisterRequest(username: username, password: password))
        return try await logIn(username, password: password, device: device)
    }

    func logIn(_ login: String, password: String = "Passw0rd!", device: String = "test") async throws -> TestUser {
        let tokens: TokenResponse = try await call(
            .post, "/v1/sessions", LoginRequest(login: login, password: password, device: device))
        return TestUser(
            id: tokens.account.user.id, username: login, token: tokens.accessToken, sessionId: tokens.session.id)
    }

    func createGroup(_ name: String, by owner: TestUser, with members: [TestUser]) async throws -> ConversationID {
        let detail: ConversationDetail = try await call(
            .post, "/v1/conversations", CreateGroupRequest(name: name, memberIds: members.map(\.id)), token: owner.token
        )
        return detail.conversation.id
    }

    func sendText(
        _ text: String, to conversationId: ConversationID, as user: TestUser, clientMsgId: String = UUID().uuidString
    )
        async throws -> SendMessageResponse
    {
        try await call(
            .post, "/v1/messages", SendMessageRequest.text(text, to: conversationId, clientMsgId: clientMsgId),
            token: user.token)
    }

    /// Uploads `bytes` chunk by chunk (or finds them by hash) and answers the file.
    func upload(
        _ bytes: [UInt8], as user: TestUser, kind: MessageKind = .image, mimeType: String = "image/png"
    ) async throws -> FileInfo {
        let started: StartUploadResponse = try await call(
            .post, "/v1/uploads",
            StartUploadRequest(
                sha256: SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined(), size: Int64(bytes.count),
                mimeType: mimeType, name: "a.png", kind: kind),
            token: user.token)
        if let file = started.file { return file }
        guard let upload = started.upload else { throw APIFailure(status: 0, error: ParleyError(.internalError, "")) }
        for offset in stride(from: 0, to: bytes.count, by: Int(upload.chunkSize)) {
            let end = min(offset + Int(upload.chunkSize), bytes.count)
            let answer = try await self.bytes(
                .put, "/v1/uploads/\(upload.uploadId)/chunks/\(offset)", body: ByteBuffer(bytes: bytes[offset..<end]),
                token: user.token)
            guard answer.status == 200 else {
                throw APIFailure(status: answer.status, error: ParleyError(.internalError, String(buffer: answer.body)))
            }
        }
        return try await call(.post, "/v1/uploads/\(upload.uploadId)/complete", token: user.token)
    }

    /// The whole history of a conversation, paging forward.
    func fullHistory(of conversationId: ConversationID, as user: TestUser) async throws -> [Message] {
        var messages: [Message] = []
        while true {
            let page: HistoryPage = try await call(
                .get, "/v1/conversations/\(conversationId)/messages?after=\(messages.last?.seq ?? 0)&limit=200",
                token: user.token)
            messages += page.messages
            if !page.hasMore { return messages }
        }
    }
}

struct EmptyBody: Codable, Sendable {}

/// Bytes that sniff as a PNG image: the signature, then `count` pseudo-random bytes from `seed`.
func testPNG(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
    var state = UInt32(seed) &* 2_654_435_761 | 1
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        + (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
}

func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(text.utf8))
}
