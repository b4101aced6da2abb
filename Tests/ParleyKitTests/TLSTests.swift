import AsyncHTTPClient
import Foundation
import NIOSSL
import ParleyCore
import ParleyKit
import ParleyKitTransport
import ParleyTesting
import Testing

extension LiveServerSuites {
    /// The server speaking TLS with a certificate it was given, and the SDK using it over
    /// `https` and `wss` when told to trust that certificate; HSTS on its answers.
    @Suite(.serialized) struct TLSTests {
        @Test func theSDKSignsUpConnectsAndSendsOverTLS() async throws {
            let certificate = try TestCertificate()
            let (certificatePath, keyPath) = try certificate.writeFiles()
            let server = try await InProcessServer.start {
                $0.tlsCertificatePath = certificatePath
                $0.tlsKeyPath = keyPath
            }
            #expect(server.url.hasPrefix("https://"))
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([
                try NIOSSLCertificate(bytes: Array(certificate.certificatePEM.utf8), format: .pem)
            ])
            var httpConfiguration = HTTPClient.Configuration(tlsConfiguration: tls)
            httpConfiguration.timeout.connect = .seconds(5)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)

            // By name: the WebSocket client sends the host as the TLS server name (SNI), which
            // may not be an IP address.
            let url = "https://localhost:\(server.port)"
            var configuration = ClientConfiguration(serverURL: url)
            configuration.requestTimeout = .seconds(10)
            let alice = try ParleyClient(
                configuration: configuration, store: ClientStore(path: nil),
                http: AsyncHTTPTransport(client: http, timeout: testHTTPTimeout),
                realtime: NIOWebSocketTransport(tlsConfiguration: tls))
            do {
                try await Self.exercise(alice, http: http, url: url)
            } catch {
                Issue.record(error)
            }
            await alice.disconnect()
            try await http.shutdown()
            await server.stop()
        }

        static func exercise(_ alice: ParleyClient, http: HTTPClient, url: String) async throws {
            try await signUp(alice, "alice")
            await alice.connect()
            try await eventually("connected over wss") { await alice.connection.status == .connected }
            let group = try await alice.conversations.createGroup(name: "notes", usernames: [])
            let handle = try await alice.sendQueue.send(text: "over TLS", to: group.id)
            guard case .sent = await handle.settled() else {
                Issue.record("not sent: \(await handle.state)")
                return
            }
            #expect(try await serverHistory(group.id, via: alice).map { text($0.content) }.last == "over TLS")

            let raw = try await http.execute(HTTPClientRequest(url: url + "/health"), timeout: .seconds(10))
            #expect(raw.status.code == 200)
            #expect(raw.headers.first(name: "Strict-Transport-Security") == "max-age=63072000; includeSubDomains")

            // A client that does not trust the certificate is refused.
            let stranger = try makeClient(url)
            await #expect(throws: (any Error).self) { try await signUp(stranger, "mallory") }
        }
    }
}
