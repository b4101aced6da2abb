import ParleyCore
import Testing

/// Every signature the sniffer knows, one by one, with the near misses that must not match.
@Suite struct ContentSnifferTests {
    static func bytes(_ values: [UInt8], _ text: String = "") -> [UInt8] { values + Array(text.utf8) }
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    /// Thirty-two bytes of binary padding after a signature.
    static let tail = [UInt8](repeating: 0, count: 32)

    @Test(
        arguments: [
            (bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + tail, "image/png"),
            (bytes([0xFF, 0xD8, 0xFF, 0xE0]) + tail, "image/jpeg"),
            (ascii("GIF87a") + tail, "image/gif"),
            (ascii("GIF89a") + tail, "image/gif"),
            (ascii("RIFF") + [0, 0, 0, 0] + ascii("WEBPVP8 ") + tail, "image/webp"),
            (ascii("RIFF") + [0, 0, 0, 0] + ascii("WAVEfmt ") + tail, "audio/wav"),
            (ascii("RIFF") + [0, 0, 0, 0] + ascii("AVI LIST") + tail, "video/x-msvideo"),
            (ascii("BM") + tail, "image/bmp"),
            ([0, 0, 0, 0x20] + ascii("ftypisom") + tail, "video/mp4"),
            ([0, 0, 0, 0x20] + ascii("ftypM4A ") + tail, "audio/mp4"),
            ([0, 0, 0, 0x20] + ascii("ftypqt  ") + tail, "video/quicktime"),
            ([0, 0, 0, 0x20] + ascii("ftypheic") + tail, "image/heic"),
            ([0, 0, 0, 0x20] + ascii("ftypmif1") + tail, "image/heic"),
            ([0, 0, 0, 0x20] + ascii("ftypavif") + tail, "image/avif"),
            (bytes([0x1A, 0x45, 0xDF, 0xA3]) + tail, "video/webm"),
            (ascii("OggS") + tail, "audio/ogg"),
            (ascii("ID3") + tail, "audio/mpeg"),
            (bytes([0xFF, 0xFB, 0x90]) + tail, "audio/mpeg"),
            (bytes([0xFF, 0xF1, 0x50]) + tail, "audio/aac"),
            (ascii("#!AMR\n") + tail, "audio/amr"),
            (ascii("fLaC") + tail, "audio/flac"),
            (ascii("%PDF-1.7\n") + tail, "application/pdf"),
            (bytes([0x50, 0x4B, 0x03, 0x04]) + tail, "application/zip"),
            (bytes([0x1F, 0x8B, 0x08]) + tail, "application/gzip"),
            (ascii("7z") + [0xBC, 0xAF, 0x27, 0x1C] + tail, "application/x-7z-compressed"),
            (ascii("<!DOCTYPE html><p>hi"), "text/html"),
            (bytes([0xEF, 0xBB, 0xBF], "  \n<HTML><body>"), "text/html"),
            (ascii("<script>alert(1)</script>"), "text/html"),
            (ascii("<!-- a comment -->"), "text/html"),
            (ascii("<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), "image/svg+xml"),
            (ascii("<?xml version=\"1.0\"?><svg/>"), "image/svg+xml"),
            (ascii("<?xml version=\"1.0\"?><note/>"), "application/xml"),
            (ascii("plain words, 中文 too\n"), "text/plain"),
        ] as [([UInt8], String)])
    func eachSignatureIsKnown(_ sample: (bytes: [UInt8], type: String)) {
        #expect(ContentSniffer.mimeType(of: sample.bytes) == sample.type)
    }

    @Test func nearMissesAreNotTaken() {
        #expect(ContentSniffer.mimeType(of: [UInt8]()) == nil, "nothing")
        #expect(ContentSniffer.mimeType(of: [0x89, 0x50, 0x4E, 0x47] + Self.tail) == nil, "half a PNG signature")
        #expect(ContentSniffer.mimeType(of: Self.ascii("RIFF") + [0, 0, 0, 0] + Self.ascii("XXXX")) == nil)
        #expect(ContentSniffer.mimeType(of: Self.ascii("BM")) == "text/plain", "two letters are text, not a bitmap")
        #expect(ContentSniffer.mimeType(of: [0x00, 0x01, 0x02, 0x03]) == nil, "control bytes are not text")
        #expect(ContentSniffer.mimeType(of: Self.ascii("hello") + [0xC3]) == nil, "a cut character in a short file")
        // A long text whose 512-byte prefix ends inside a character is still text.
        let long = Array(String(repeating: "中", count: 200).utf8)
        #expect(ContentSniffer.mimeType(of: long) == "text/plain")
    }

    @Test func activeTypesAreThoseABrowserCouldRun() {
        for active in [
            "text/html", "image/svg+xml", "application/xml", "text/xml", "application/javascript",
            "application/xhtml+xml", "text/css",
        ] {
            #expect(ContentSniffer.isActive(active), "\(active)")
        }
        for inert in ["text/plain", "image/png", "application/pdf", "video/mp4", "application/octet-stream"] {
            #expect(!ContentSniffer.isActive(inert), "\(inert)")
        }
    }
}
