import Foundation
import ParleyCore
import ParleyStore

/// Signs and checks download links: `/v1/files/{fileId}?expires=…&signature=…`, where the
/// signature covers the file id and the expiry under a secret every node shares, so a link
/// made by one node works on all.
struct FileLinkSigner: Sendable {
    private let signer: SharedSecretSigner

    init(store: any ParleyStore) { signer = SharedSecretSigner(store: store, name: "file_links") }

    /// A link to `fileId` that works until `expiresAt` (ms since 1970).
    func link(to fileId: String, expiresAt: Int64) async throws -> FileLink {
        let signature = try await signer.sign("\(fileId)\n\(expiresAt)")
        return FileLink(
            url: Endpoint.getFile.path(fileId) + "?expires=\(expiresAt)&signature=\(signature)", expiresAt: expiresAt)
    }

    /// Whether `signature` and `expires` (from a link's query) open `fileId` at `now`; throws
    /// `link_invalid` when the link has run out or was not made by this server.
    func check(fileId: String, expires: String, signature: String, at now: Int64) async throws {
        guard let expiresAt = Int64(expires), try await signer.isSignature(signature, of: "\(fileId)\n\(expiresAt)")
        else { throw ParleyError(.linkInvalid, "This download link is not valid.") }
        guard expiresAt > now else { throw ParleyError(.linkInvalid, "This download link has expired.") }
    }
}
