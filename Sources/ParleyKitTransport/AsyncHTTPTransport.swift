import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyKit

/// ParleyKit's default HTTP transport, over AsyncHTTPClient.
public struct AsyncHTTPTransport: HTTPTransport {
    let client: HTTPClient
    let timeout: TimeAmount

    /// `client` defaults to one that reports a connection it could not open at once.
    public init(client: HTTPClient? = nil, timeout: Duration = .seconds(15)) {
        self.client = client ?? Self.failFastClient
        self.timeout = .milliseconds(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    }

    /// A client that reports a connection it could not open at once, instead of retrying it
    /// until the request times out (AsyncHTTPClient's default): the SDK retries on its own
    /// terms (outbox, reconnect backoff), and a command against a stopped server should say
    /// so in milliseconds, not after 15 seconds.
    static let failFastClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
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
        } catch {
            throw TransportError(.unreachable, "HTTP \(method) \(url) failed: \(error)")
        }
    }
}
