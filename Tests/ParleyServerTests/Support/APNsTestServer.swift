import Crypto
import Foundation
import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOSSL
import ParleyServer
import ParleyTesting
import ServiceLifecycle
import Synchronization

/// A stand-in for Apple's push service on loopback: HTTP/2 over TLS (a certificate made for
/// `localhost` and 127.0.0.1 at start), `POST /3/device/{token}`, recording every request
/// and answering as scripted per token (200 by default). A token can be held: its requests
/// wait until ``release(_:)``.
final class APNsTestServer: Sendable {
    struct Received: Sendable {
        var token: String
        var authority: String?
        var scheme: String?
        var headers: [String: String]
        var body: Data
    }

    let port: Int
    /// The PEM of the server's certificate, for the pusher to trust.
    let certificatePEM: String
    /// The provider key the pusher signs with, and its public half to verify with.
    let signingKey = P256.Signing.PrivateKey()
    private let received = Mutex<[Received]>([])
    private let answers = Mutex<[String: (status: Int, reason: String, times: Int?)]>([:])
    /// Tokens held, with the requests waiting for each.
    private let held = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    var requests: [Received] { received.withLock { $0 } }

    /// Answers `status` with `{"reason": reason}` to pushes for `token`, the next `times`
    /// ones (nil: all).
    func answer(_ token: String, status: Int, reason: String, times: Int? = nil) {
        answers.withLock { $0[token] = (status, reason, times) }
    }

    /// Holds requests for `token` until ``release(_:)``.
    func hold(_ token: String) { held.withLock { $0[token] = [] } }

    func release(_ token: String) {
        for waiter in held.withLock({ $0.removeValue(forKey: token) ?? [] }) { waiter.resume() }
    }

    /// Waits until `count` requests arrived (or fails after `timeout`).
    func waitForRequests(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [Received] {
        let deadline = ContinuousClock.now + timeout
        while requests.count < count {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("APNs test server got \(requests.count) requests, expected \(count)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return requests
    }

    /// The pusher's configuration for this server: production at `localhost`, sandbox at
    /// 127.0.0.1 (both this server), so a test tells them apart by the authority.
    func configuration(teamId: String = "TEAM123456", keyId: String = "KEY1234567") -> APNsConfiguration {
        var configuration = APNsConfiguration(
            privateKeyPEM: signingKey.pemRepresentation, keyId: keyId, teamId: teamId)
        configuration.productionURL = "https://localhost:\(port)"
        configuration.sandboxURL = "https://127.0.0.1:\(port)"
        configuration.trustedCertificatePEM = certificatePEM
        return configuration
    }

    private init(port: Int, certificatePEM: String, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.certificatePEM = certificatePEM
        self.group = group
        self.task = task
    }

    static func start() async throws -> APNsTestServer {
        let generated = try TestCertificate()
        let certificatePEM = generated.certificatePEM
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(generated.privateKeyPEM.utf8), format: .pem)))
        tls.applicationProtocols = ["h2"]

        let box = Mutex<APNsTestServer?>(nil)
        let router = Router()
        router.post("/3/device/:token") { request, context -> Response in
            guard let server = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            return try await server.handle(request, token: try context.parameters.require("token"))
        }
        var logger = Logger(label: "apns-test-server")
        logger.logLevel = .critical
        let (listening, announce) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { announce.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            defer { announce.finish() }
            try await group.run()
        }
        var ports = listening.makeAsyncIterator()
        guard let port = await ports.next() else {
            try await task.value
            throw TestFailure("the APNs test server did not start")
        }
        let server = APNsTestServer(port: port, certificatePEM: certificatePEM, group: group, task: task)
        box.withLock { $0 = server }
        return server
    }

    private func handle(_ request: Request, token: String) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        received.withLock {
            $0.append(
                Received(
                    token: token, authority: request.head.authority, scheme: request.head.scheme, headers: headers,
                    body: Data(body.readableBytesView)))
        }
        await withCheckedContinuation { continuation in
            let waits = held.withLock { held -> Bool in
                guard held[token] != nil else { return false }
                held[token]!.append(continuation)
                return true
            }
            if !waits { continuation.resume() }
        }
        let (status, reason) = answers.withLock { answers -> (Int, String) in
            guard let answer = answers[token] else { return (200, "") }
            if let times = answer.times { answers[token] = times > 1 ? (answer.status, answer.reason, times - 1) : nil }
            return (answer.status, answer.reason)
        }
        guard status != 200 else { return Response(status: .ok, headers: [.init("apns-id")!: UUID().uuidString]) }
        return Response(
            status: .init(code: status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"reason":"\#(reason)"}"#)))
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
