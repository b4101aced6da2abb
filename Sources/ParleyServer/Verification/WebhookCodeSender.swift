import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import ParleyCore

/// Hands codes to an HTTP endpoint, such as an SMS gateway's or a small relay in front of
/// one: `POST` of a JSON ``Payload``, signed so the receiver can tell it came from this
/// server. With a secret, `X-Parley-Signature: sha256=<hex>` is the HMAC-SHA256 of
/// `<X-Parley-Timestamp>.<body>` under it. Any answer but 2xx is a failure.
public struct WebhookCodeSender: CodeSender {
    /// The JSON body.
    struct Payload: Codable, Sendable {
        var channel: VerificationChannel
        var to: String
        var purpose: VerificationPurpose
        var code: String
        var text: String
        var subject: String
        var expiresAt: Int64
    }

    let url: String
    let secret: String?
    let timeout: TimeAmount

    /// `url` must be `https://` (or `http://` to a loopback address); `secret` signs each request.
    public init(url: String, secret: String?, timeout: TimeAmount = .seconds(10)) throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme, let host = parsed.host, !host.isEmpty,
            scheme == "https" || (scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(host))
        else {
            throw CodeSenderConfigurationError(
                "A code webhook must be an https:// URL (http:// only to 127.0.0.1 or localhost), not '\(url)'.")
        }
        self.url = url
        self.secret = secret
        self.timeout = timeout
    }

    public func send(_ message: CodeMessage) async throws {
        let body = try JSONEncoder().encode(
            Payload(
                channel: message.channel, to: message.to, purpose: message.purpose, code: message.code,
                text: message.text, subject: message.subject, expiresAt: message.expiresAt))
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Parley")
        if let secret {
            let timestamp = String(Int64(Date().timeIntervalSince1970))
            request.headers.add(name: "X-Parley-Timestamp", value: timestamp)
            request.headers.add(
                name: "X-Parley-Signature", value: "sha256=" + Self.signature(of: body, at: timestamp, secret: secret))
        }
        request.body = .bytes(ByteBuffer(data: body))
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        _ = try? await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(response.status.code) else {
            throw CodeDeliveryError(
                "The code webhook answered \(response.status.code) \(response.status.reasonPhrase).")
        }
    }

    /// The hex HMAC-SHA256 of `<timestamp>.<body>` under `secret`: what a receiver recomputes.
    public static func signature(of body: Data, at timestamp: String, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data((timestamp + ".").utf8) + body, using: SymmetricKey(data: Data(secret.utf8)))
        return mac.hexEncoded
    }
}
