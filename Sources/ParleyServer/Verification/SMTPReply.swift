/// A reply of the mail server: a three-digit code and its lines of text, as in
/// `250-mail.example.com`, `250-STARTTLS`, `250 AUTH PLAIN LOGIN` (RFC 5321, section 4.2).
struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    let code: Int
    /// The text of each line, without the code and the separator after it.
    let lines: [String]

    var description: String { "\(code) \(lines.joined(separator: " "))" }

    /// The extensions a reply to EHLO announces, by upper-case keyword, with their parameters
    /// (`AUTH` → `PLAIN LOGIN`). The first line is the server's name, not an extension.
    var extensions: [String: String] {
        var extensions: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard let keyword = parts.first else { continue }
            extensions[keyword.uppercased()] = parts.count > 1 ? String(parts[1]) : ""
        }
        return extensions
    }

    /// One line of a reply: its code, its text, and whether it ends the reply (`250 text` or
    /// `250`) or more lines follow (`250-text`).
    struct Line {
        let code: Int
        let text: String
        let isLast: Bool

        /// Reads a line as received, without its CRLF; nil unless it is a reply line.
        init?(_ line: String) {
            let bytes = Array(line.utf8)
            guard bytes.count >= 3, bytes[0...2].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let code = Int(String(decoding: bytes[0...2], as: UTF8.self)), (200...599).contains(code)
            else { return nil }
            guard bytes.count == 3 || bytes[3] == UInt8(ascii: " ") || bytes[3] == UInt8(ascii: "-") else { return nil }
            self.code = code
            self.isLast = bytes.count == 3 || bytes[3] == UInt8(ascii: " ")
            self.text = bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : ""
        }
    }
}
