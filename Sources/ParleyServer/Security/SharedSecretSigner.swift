import Crypto
import Foundation
import ParleyStore
import Synchronization

/// Signs texts with an HMAC-SHA256 under a secret every node shares (made once, kept in the
/// store under `name`), so what one node signed checks on all: download links, login
/// challenges.
final class SharedSecretSigner: Sendable {
    private let store: any ParleyStore
    private let name: String
    private let key = Mutex<SymmetricKey?>(nil)

    init(store: any ParleyStore, name: String) {
        self.store = store
        self.name = name
    }

    /// The signature of `text`, Base64url without padding.
    func sign(_ text: String) async throws -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: try await secret())
        return Data(mac).base64URLEncoded
    }

    /// Whether `signature` is the signature of `text`, compared in constant time.
    func isSignature(_ signature: String, of text: String) async throws -> Bool {
        Data(try await sign(text).utf8).constantTimeEquals(Data(signature.utf8))
    }

    private func secret() async throws -> SymmetricKey {
        if let known = key.withLock({ $0 }) { return known }
        let proposed = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
        let stored = try await store.sharedSecret(name, proposing: proposed)
        let made = SymmetricKey(data: Data(base64Encoded: stored) ?? Data(stored.utf8))
        key.withLock { $0 = made }
        return made
    }
}
