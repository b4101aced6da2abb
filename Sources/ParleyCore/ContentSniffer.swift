/// The type of a file's content, told from its first bytes (its magic numbers), never from
/// what a client says. The server keeps this type and serves the file with it.
public enum ContentSniffer {
    /// How many leading bytes ``mimeType(of:)`` reads.
    public static let prefixLength = 512

    /// The type of content that begins with `prefix` (at most ``prefixLength`` bytes are
    /// looked at), or nil when no signature matches.
    public static func mimeType(of prefix: some Collection<UInt8>) -> String? {
        let bytes = Array(prefix.prefix(prefixLength))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if ascii("GIF87a") || ascii("GIF89a") { return "image/gif" }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return "image/webp" }
        if ascii("RIFF") && ascii("WAVE", at: 8) { return "audio/wav" }
        if ascii("RIFF") && ascii("AVI ", at: 8) { return "video/x-msvideo" }
        if ascii("BM") && bytes.count >= 14 { return "image/bmp" }
        if ascii("ftyp", at: 4) {
            let brand = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : ""
            switch brand {
            case "M4A ", "M4B ": return "audio/mp4"
            case "qt  ": return "video/quicktime"
            case "heic", "heix", "mif1": return "image/heic"
            case "avif": return "image/avif"
            default: return "video/mp4"
            }
        }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return "video/webm" }
        if ascii("OggS") { return "audio/ogg" }
        if ascii("ID3") || starts([0xFF, 0xFB]) || starts([0xFF, 0xF3]) || starts([0xFF, 0xF2]) {
            return "audio/mpeg"
        }
        if starts([0xFF, 0xF1]) || starts([0xFF, 0xF9]) { return "audio/aac" }
        if ascii("#!AMR") { return "audio/amr" }
        if ascii("fLaC") { return "audio/flac" }
        if ascii("%PDF-") { return "application/pdf" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
        if starts([0x1F, 0x8B]) { return "application/gzip" }
        if ascii("7z") && starts([0xBC, 0xAF, 0x27, 0x1C], at: 2) { return "application/x-7z-compressed" }
        return markup(bytes) ?? plainText(bytes)
    }

    /// HTML, SVG and XML, which a browser could run: told by their first tag, after any
    /// byte-order mark and white space, case-insensitively.
    private static func markup(_ bytes: [UInt8]) -> String? {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(bytes[start]) { start += 1 }
        let head = String(decoding: bytes[start...], as: UTF8.self).lowercased()
        let htmlTags = ["<!doctype html", "<html", "<head", "<body", "<script", "<iframe", "<title", "<style", "<!--"]
        if htmlTags.contains(where: head.hasPrefix) { return "text/html" }
        if head.hasPrefix("<svg") || (head.hasPrefix("<?xml") && head.contains("<svg")) { return "image/svg+xml" }
        if head.hasPrefix("<?xml") { return "application/xml" }
        return nil
    }

    /// UTF-8 text with no control characters but white space.
    private static func plainText(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty else { return nil }
        // The prefix may end inside a character: up to three trailing bytes may be cut off.
        let text = String(decoding: bytes, as: UTF8.self)
        let replacements = text.unicodeScalars.filter { $0 == "\u{FFFD}" }.count
        guard replacements <= (bytes.count < prefixLength ? 0 : 1),
            !text.unicodeScalars.contains(where: {
                $0.value < 0x20 && ![0x09, 0x0A, 0x0D, 0x0C].contains($0.value) || $0.value == 0x7F
            })
        else { return nil }
        return "text/plain"
    }

    /// Whether a browser could run content of this type as a page or script, so that it must
    /// be downloaded as an attachment, never shown inline.
    public static func isActive(_ mimeType: String) -> Bool {
        let type = mimeType.lowercased()
        return type.hasPrefix("text/html") || type.hasPrefix("image/svg") || type.hasSuffix("+xml")
            || type.hasSuffix("/xml")
            || type.contains("javascript") || type.hasPrefix("application/xhtml")
            || type.hasPrefix("text/")
                && !type.hasPrefix("text/plain")
    }
}
