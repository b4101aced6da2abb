import Crypto
import Foundation

/// Bearer tokens: 256 random bits, URL-safe base64 with a prefix naming their use. Only
/// their SHA-256 is stored, so a copy of the database grants no access.
enum SessionToken {
    static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Data(bytes).base64URLEncoded
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
