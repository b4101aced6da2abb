import Crypto
import Foundation
import ParleyCore

/// Bearer tokens: 256 random bits, URL-safe base64 with a prefix naming their use. Only
/// their SHA-256 is stored, so a copy of the database grants no access.
enum SessionToken {
    static func make(prefix: String) -> String {
        // One draw of 256 bits from the system's generator (a key is exactly that).
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return prefix + bytes.base64URLEncoded
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hexEncoded
    }
}
