import Crypto
import Foundation
import ParleyCore

/// The browser client's static files (HTML, CSS, JavaScript modules), read once from this
/// module's resources, each with its content type and a content hash for `ETag`.
struct WebClientFiles: Sendable {
    struct File: Sendable {
        let bytes: Data
        let contentType: String
        /// The SHA-256 of `bytes`, in hex: the file's `ETag`.
        let hash: String
    }

    /// By path below the client's folder (`index.html`, `js/app.js`).
    let files: [String: File]

    /// The files shipped in `Resources/web`.
    static let bundled = WebClientFiles(directory: Bundle.module.url(forResource: "web", withExtension: nil))

    init(directory: URL?) {
        guard let directory,
            let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        else {
            files = [:]
            return
        }
        var files: [String: File] = [:]
        let root = directory.standardizedFileURL.path + "/"
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let bytes = try? Data(contentsOf: url)
            else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(root.count))
            files[path] = File(
                bytes: bytes, contentType: Self.contentType(of: path),
                hash: SHA256.hash(data: bytes).hexEncoded)
        }
        self.files = files
    }

    static func contentType(of path: String) -> String {
        switch path.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "json", "webmanifest": "application/manifest+json"
        default: "application/octet-stream"
        }
    }
}
