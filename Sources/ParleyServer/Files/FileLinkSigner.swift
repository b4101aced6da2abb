import Crypto
import Foundation
import ParleyCore
import ParleyStore
import Synchronization

/// Signs and checks download links: `/v1/files/{fileId}?expires=…&signature=…`, where the
/// signature is an HMAC-SHA256 of the file id and the expiry under a secret every node shares
/// (made once and kept in the store), so a link made by one node works on all.
final class FileLinkSigner: Sendable {
    private let store: any ParleyStore
    private let key = Mutex<SymmetricKey?>(nil)

    init(store: any ParleyStore) { self.store = store }

    /// A link to `fileId` that works until `expiresAt` (ms since 1970).
    func link(to fileId: String, expiresAt: Int64) async throws -> FileLink {
        let signature = try await sign(fileId, expiresAt)
        return FileLink(
            url: Endpoint.getFile.path(fileId) + "?expires=\(expiresAt)&signature=\(signature)", expiresAt: expiresAt)
    }

    /// Whether `signature` and `expires` (from a link's query) open `fileId` at `now`; throws
    /// `link_invalid` when the link has run out or was not made by this server.
    func check(fileId: String, expires: String, signature: String, at now: Int64) async throws {
        guard let expiresAt = Int64(expires) else { throw Self.invalid }
        let expected = try await sign(fileId, expiresAt)
        guard Data(expected.utf8).elementsEqualInConstantTime(Data(signature.utf8)) else { throw Self.invalid }
        guard expiresAt > now else { throw ParleyError(.linkInvalid, "This download link has expired.") }
    }

    private static let invalid = ParleyError(.linkInvalid, "This download link is not valid.")

    private func sign(_ fileId: String, _ expiresAt: Int64) async throws -> String {
        let key = try await secret()
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(fileId)\n\(expiresAt)".utf8), using: key)
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private func secret() async throws -> SymmetricKey {
        if let known = key.withLock({ $0 }) { return known }
        let proposed = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
        let stored = try await store.sharedSecret("file_links", proposing: proposed)
        let made = SymmetricKey(data: Data(base64Encoded: stored) ?? Data(stored.utf8))
        key.withLock { $0 = made }
        return made
    }
}

extension Data {
    /// Compares in time that does not depend on where the first difference is.
    fileprivate func elementsEqualInConstantTime(_ other: Data) -> Bool {
        guard count == other.count else { return false }
        return zip(self, other).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
