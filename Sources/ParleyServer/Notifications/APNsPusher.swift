import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import ParleyCore
import Synchronization

/// Where and as whom the server pushes through Apple's push service (APNs), with token
/// authentication (`--apns-key`, `--apns-key-id`, `--apns-team-id`).
public struct APNsConfiguration: Sendable {
    /// The PEM of the `.p8` signing key Apple issued.
    public var privateKeyPEM: String
    public var keyId: String
    public var teamId: String
    /// The service for production tokens and for development (sandbox) ones; a test points
    /// both at a local server.
    public var productionURL = "https://api.push.apple.com"
    public var sandboxURL = "https://api.sandbox.push.apple.com"
    /// Extra certificates to trust (PEM), for a test server's self-signed one.
    public var trustedCertificatePEM: String?

    public init(privateKeyPEM: String, keyId: String, teamId: String) {
        self.privateKeyPEM = privateKeyPEM
        self.keyId = keyId
        self.teamId = teamId
    }
}

/// Pushes through APNs over HTTP/2, as Apple documents it ("Sending notification requests
/// to APNs"): `POST /3/device/<token>` with `authorization: bearer <ES256 JWT>`,
/// `apns-topic` (the app's bundle id), `apns-push-type: alert`, `apns-priority: 10`,
/// `apns-expiration` and the `aps` payload. The provider token is signed with jwt-kit and
/// reused for ``tokenLifetime`` (Apple refuses one older than an hour and throttles new ones
/// made more often than every 20 minutes); a 403 `ExpiredProviderToken` makes a new one.
/// A 410, or a 400 `BadDeviceToken`/`DeviceTokenNotForTopic`, means the token is gone;
/// 429 and 5xx are retried twice with backoff.
final class APNsPusher: Pusher {
    static let tokenLifetimeMs: Int64 = 50 * 60 * 1000
    static let attempts = 3

    private let configuration: APNsConfiguration
    private let keys: JWTKeyCollection
    private let client: HTTPClient
    private let clock: WallClock
    private let logger: Logger
    /// The provider token being used: signed once (the task) and shared by every push, when
    /// it was made, and its generation (so that several pushes refused at once renew it once).
    private let providerToken = Mutex<(signing: Task<String, any Error>, issuedAt: Int64, generation: Int)?>(nil)

    init(configuration: APNsConfiguration, clock: WallClock, logger: Logger) async throws {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        let key = try ES256PrivateKey(pem: configuration.privateKeyPEM)
        keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: configuration.keyId))
        var tls = TLSConfiguration.makeClientConfiguration()
        if let pem = configuration.trustedCertificatePEM {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))]
        }
        var http = HTTPClient.Configuration(tlsConfiguration: tls)
        http.httpVersion = .automatic
        http.timeout.connect = .seconds(10)
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: http)
    }

    /// Shuts the client down without blocking: the last reference may go on an event loop.
    deinit {
        _ = client.shutdown()
    }

    /// The claims of a provider token: the team (`iss`) and when it was made (`iat`, seconds).
    struct ProviderClaims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The current provider token and its generation: signed anew, once for everyone waiting,
    /// when older than ``tokenLifetimeMs`` or when APNs refused generation `refused`.
    func bearer(renewing refused: Int? = nil) async throws -> (jwt: String, generation: Int) {
        let now = clock.now()
        let (signing, generation) = providerToken.withLock { current -> (Task<String, any Error>, Int) in
            if let current, now - current.issuedAt < Self.tokenLifetimeMs, current.generation != refused {
                return (current.signing, current.generation)
            }
            let generation = (current?.generation ?? 0) + 1
            let (keys, configuration) = (self.keys, self.configuration)
            let signing = Task {
                try await keys.sign(
                    ProviderClaims(
                        iss: IssuerClaim(value: configuration.teamId),
                        iat: IssuedAtClaim(value: Date(timeIntervalSince1970: Double(now / 1000)))),
                    kid: JWKIdentifier(string: configuration.keyId))
            }
            current = (signing, now, generation)
            return (signing, generation)
        }
        do {
            return (try await signing.value, generation)
        } catch {
            providerToken.withLock { if $0?.generation == generation { $0 = nil } }
            throw error
        }
    }

    /// The JSON body: `aps` (alert, badge, sound, thread-id) beside Parley's own keys.
    struct Payload: Encodable {
        struct APS: Encodable {
            struct Alert: Encodable {
                var title: String
                var body: String
            }
            var alert: Alert
            var badge: Int64
            var sound = "default"
            var threadId: String?

            enum CodingKeys: String, CodingKey {
                case alert, badge, sound
                case threadId = "thread-id"
            }
        }
        var aps: APS
        var kind: NotificationKind
        var conversationId: ConversationID?
        var seq: Int64?

        init(_ notification: PushNotification) {
            aps = APS(
                alert: APS.Alert(title: notification.title, body: notification.body), badge: notification.badge,
                threadId: notification.conversationId.map { "conversation-\($0.rawValue)" })
            kind = notification.kind
            conversationId = notification.conversationId
            seq = notification.seq
        }
    }

    func push(_ notification: PushNotification, to token: PushToken) async -> PushOutcome {
        let base = token.sandbox ? configuration.sandboxURL : configuration.productionURL
        let body: Data
        do {
            body = Data(try JSONText.encode(Payload(notification)).utf8)
        } catch {
            return .failed("cannot encode the payload: \(error)")
        }
        var refused: Int?
        var renewed = false
        var lastFailure = "no attempt"
        for attempt in 1...Self.attempts {
            do {
                var request = HTTPClientRequest(url: "\(base)/3/device/\(token.token)")
                request.method = .POST
                let bearer = try await bearer(renewing: refused)
                request.headers.add(name: "authorization", value: "bearer \(bearer.jwt)")
                request.headers.add(name: "apns-topic", value: token.appId)
                request.headers.add(name: "apns-push-type", value: "alert")
                request.headers.add(name: "apns-priority", value: "10")
                request.headers.add(name: "apns-expiration", value: "\(clock.now() / 1000 + 24 * 3600)")
                request.headers.add(name: "content-type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: body))
                let response = try await client.execute(request, timeout: .seconds(15))
                let answer = try await response.body.collect(upTo: 64 * 1024)
                let reason = Self.reason(in: Data(answer.readableBytesView))
                switch response.status.code {
                case 200:
                    return .delivered
                case 410:
                    return .tokenGone
                case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic":
                    return .tokenGone
                case 403 where reason == "ExpiredProviderToken" && !renewed:
                    (refused, renewed) = (bearer.generation, true)
                    continue
                case 429, 500...599:
                    lastFailure = "HTTP \(response.status.code) \(reason ?? "")"
                default:
                    return .failed("HTTP \(response.status.code) \(reason ?? "")")
                }
            } catch {
                lastFailure = "\(error)"
            }
            if attempt < Self.attempts { try? await Task.sleep(for: .milliseconds(100 << (2 * attempt))) }
        }
        return .failed(lastFailure)
    }

    /// The `reason` of an APNs error body (`{"reason": "Unregistered"}`).
    static func reason(in body: Data) -> String? {
        guard
            case .object(let object)? = try? JSONText.decode(
                JSONValue.self, from: String(decoding: body, as: UTF8.self)),
            case .string(let reason)? = object["reason"]
        else { return nil }
        return reason
    }
}
