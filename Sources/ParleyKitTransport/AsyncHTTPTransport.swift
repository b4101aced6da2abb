import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyKit

/// ParleyKit's default HTTP transport, over AsyncHTTPClient.
public struct AsyncHTTPTransport: HTTPTransport {
    let client: HTTPClient
    let timeout: TimeAmount

    /// `client` defaults to one that gives up on an unreachable server after 3 s.
    public init(client: HTTPClient? = nil, timeout: Duration = .seconds(15)) {
        self.client = client ?? Self.defaultClient
        self.timeout = .milliseconds(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    }

    /// AsyncHTTPClient retries a connection it could not open until the connect timeout;
    /// 10 s by default, which made a command against a stopped server wait 15 s (the
    /// request deadline) to say so. Three seconds still rides out a flaky network: turning
    /// the retries off instead failed every queued request at the first refused connection
    /// and made the chaos test's clients take four times as long to catch up.
    static let defaultClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(3)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    public func perform(method: String, url: String, headers: [String: String], body: Data?) async throws
        -> (status: Int, body: Data)
    {
        var request = HTTPClientRequest(url: url)
        request.method = .RAW(value: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
            return (Int(response.status.code), Data(bytes.readableBytesView))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw TransportError(
                .timedOut, "HTTP \(method) \(url): no answer within \(timeout.nanoseconds / 1_000_000) ms")
        } catch {
            throw TransportError(.unreachable, "HTTP \(method) \(url) failed: \(error)")
        }
    }
}
