/// The rules of files shared by the server (which enforces them) and clients (which can
/// check before uploading): the form of what an upload declares, which types each message
/// kind takes, and which type a file is kept with.
public enum FileRules {
    /// The message kinds that carry a file, and so the kinds an upload may be meant for.
    public static let kinds: [MessageKind] = [.image, .voice, .video, .file]

    /// Longest file name, in characters.
    public static let maxNameLength = 255

    /// File ids and upload ids: 24 characters of `[a-z0-9]`.
    public static let idLength = 24

    /// Whether `id` could be a file or upload id (checked before any lookup).
    public static func isWellFormedID(_ id: String) -> Bool {
        id.utf8.count == idLength && id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// A new random id for a file or an upload, from the system's secure random source.
    public static func randomID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<idLength).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// The error for a file that does not exist, or that the caller may not see.
    public static func notFound(_ fileId: String) -> ParleyError {
        ParleyError(.fileNotFound, "There is no file '\(fileId)' that you may use.")
    }

    /// Checks the form of an upload's declaration: the hash, the size, the type, the name
    /// and the kind. Limits that depend on the server's configuration are checked there.
    public static func check(_ request: StartUploadRequest) throws {
        guard request.sha256.utf8.count == 64,
            request.sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { throw ParleyError(.invalidField, "'sha256' must be 64 lower-case hexadecimal digits.") }
        guard request.size >= 1 else { throw ParleyError(.invalidField, "'size' must be at least 1 byte.") }
        guard isWellFormedMIMEType(request.mimeType) else {
            throw ParleyError(.invalidField, "'mimeType' must be a type such as 'image/png' (type/subtype).")
        }
        guard !request.name.isEmpty, TextRules.length(request.name) <= maxNameLength,
            !TextRules.containsControlCharacter(request.name), !request.name.contains("/"),
            !request.name.contains("\\")
        else {
            throw ParleyError(
                .invalidField,
                "'name' must be 1 to \(maxNameLength) characters with no control character, '/' or '\\'.")
        }
        if let kind = request.kind, !kinds.contains(kind) {
            throw ParleyError(.invalidField, "'kind' must be one of image, voice, video and file.")
        }
    }

    /// `type/subtype`, each of RFC 6838's restricted name characters, lower-case.
    public static func isWellFormedMIMEType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard text.utf8.count <= 127, parts.count == 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty
                && part.utf8.allSatisfy {
                    (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || Array("!#$&-^_.+".utf8).contains($0)
                }
        }
    }

    /// Whether a file of type `mimeType` may be what a message of `kind` shows: an image a
    /// browser can show safely (no SVG), audio for a voice message (WebM too, which browsers
    /// record), a video, anything for a file.
    public static func accepts(_ mimeType: String, for kind: MessageKind) -> Bool {
        switch kind {
        case .image:
            ["image/png", "image/jpeg", "image/gif", "image/webp", "image/heic", "image/avif"].contains(mimeType)
        case .voice: mimeType.hasPrefix("audio/") || mimeType == "video/webm"
        case .video: mimeType.hasPrefix("video/")
        default: true
        }
    }

    /// The type a file is kept and served with: the sniffed type when the content has a
    /// specific signature; otherwise the declared type when it is neither something a browser
    /// could run nor a media type (which must be recognisable); otherwise what was sniffed,
    /// or `application/octet-stream`.
    public static func storedType(sniffed: String?, declared: String) -> String {
        let generic: Set<String> = ["application/zip", "text/plain"]
        if let sniffed, !generic.contains(sniffed) { return sniffed }
        let media = ["image/", "audio/", "video/"].contains { declared.hasPrefix($0) }
        if isWellFormedMIMEType(declared), !ContentSniffer.isActive(declared), !media,
            declared != "application/octet-stream"
        {
            return declared
        }
        return sniffed ?? "application/octet-stream"
    }
}
