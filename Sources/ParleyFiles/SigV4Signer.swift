import Crypto
import Foundation
import NIOCore

/// AWS Signature Version 4 in the `Authorization` header, for requests whose payload goes in one
/// piece with its SHA-256 known beforehand: what S3 and the stores compatible with it check.
struct SigV4Signer: Sendable {
    /// The SHA-256 of no bytes: the payload hash of a GET, HEAD or DELETE.
    static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    let credentials: S3Credentials
    let region: String
    let service: String

    init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to send: `headers` (which must include `host`, and are all signed) and those
    /// the signature adds: `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` with
    /// temporary credentials, and `authorization`. `path` and `query` are as before encoding;
    /// the request must send them as ``encodedPath(_:)`` and ``encodedQuery(_:)`` give them.
    func sign(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)], payloadSHA256: String, date: Date
    ) -> [(name: String, value: String)] {
        let timestamp = Self.timestamp(date)
        var signed = headers.map { (name: $0.name.lowercased(), value: Self.trimmed($0.value)) }
        signed.append((name: "x-amz-date", value: timestamp))
        signed.append((name: "x-amz-content-sha256", value: payloadSHA256))
        if let sessionToken = credentials.sessionToken {
            signed.append((name: "x-amz-security-token", value: sessionToken))
        }
        signed.sort { $0.name < $1.name }
        let signedHeaderNames = signed.map(\.name).joined(separator: ";")
        let canonicalRequest = [
            method,
            Self.encodedPath(path),
            Self.encodedQuery(query),
            signed.map { "\($0.name):\($0.value)\n" }.joined(),
            signedHeaderNames,
            payloadSHA256,
        ].joined(separator: "\n")
        let day = String(timestamp.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", timestamp, scope, Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        let signingKey = [day, region, service, "aws4_request"].reduce(
            SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        ) { key, part in
            SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope),"
            + "SignedHeaders=\(signedHeaderNames),Signature=\(signature)"
        return signed + [(name: "authorization", value: authorization)]
    }

    /// The lower-case hex SHA-256 of the readable bytes of `payload`.
    static func payloadSHA256(of payload: ByteBuffer) -> String {
        hex(payload.withUnsafeReadableBytes { SHA256.hash(data: $0) })
    }

    /// `path` with each byte but the unreserved ones and `/` percent-encoded.
    static func encodedPath(_ path: String) -> String {
        uriEncoded(path, keepingSlashes: true)
    }

    /// The query string of `query`, encoded and sorted as SigV4 requires.
    static func encodedQuery(_ query: [(name: String, value: String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map {
            (name: uriEncoded($0.name), value: uriEncoded($0.value))
        }
        let sorted = encoded.sorted { (a: (name: String, value: String), b: (name: String, value: String)) -> Bool in
            a.name < b.name || (a.name == b.name && a.value < b.value)
        }
        return sorted.map { (pair: (name: String, value: String)) -> String in pair.name + "=" + pair.value }
            .joined(separator: "&")
    }

    /// `date` as SigV4 writes it: `20130524T000000Z`.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func twoDigits(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(parts.tm_year + 1900)" + twoDigits(parts.tm_mon + 1) + twoDigits(parts.tm_mday) + "T"
            + twoDigits(parts.tm_hour) + twoDigits(parts.tm_min) + twoDigits(parts.tm_sec) + "Z"
    }

    /// RFC 3986 percent-encoding with upper-case digits, keeping only `A-Z a-z 0-9 - . _ ~`
    /// (and `/` when asked).
    private static func uriEncoded(_ text: String, keepingSlashes: Bool = false) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if unreservedBytes.contains(byte) || (keepingSlashes && byte == UInt8(ascii: "/")) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true)
                    + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    private static let unreservedBytes = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// A header value as SigV4 signs it: no spaces around it, single spaces inside.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ").joined(separator: " ")
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined()
    }
}
