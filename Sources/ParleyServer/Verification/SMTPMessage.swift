import Foundation

/// A plain-text email as it travels after DATA (RFC 5322 and RFC 5321): the headers, a blank
/// line and the text, every line ended by CRLF, a line that begins with a dot given another
/// one (dot-stuffing), and the line `.` that ends DATA.
struct SMTPMessage: Sendable {
    let from: String
    let to: String
    /// What to send after DATA's `354`, up to and including the final `.` line.
    let data: String

    /// Throws when `from` or `to` is not an email address.
    init(from: String, to: String, subject: String, text: String, date: Date, messageID: String) throws {
        for (header, address) in [("From", from), ("To", to)] where !Self.isAddress(address) {
            throw SMTPError(step: "message", message: "\(header) '\(address)' is not an email address")
        }
        self.from = from
        self.to = to
        let headers = [
            "From: \(from)",
            "To: \(to)",
            "Subject: \(Self.encodedHeaderText(subject))",
            "Date: \(Self.rfc5322Date(date))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
        ]
        let body = Self.lines(of: text).map { $0.hasPrefix(".") ? "." + $0 : $0 }
        data = (headers + [""] + body + ["."]).map { $0 + "\r\n" }.joined()
    }

    /// Whether an address needs the server's SMTPUTF8 extension: it is not all ASCII.
    var needsUTF8: Bool { !(from + to).allSatisfy(\.isASCII) }

    /// A new Message-ID at the sender's domain: `<random@domain>`.
    static func newMessageID(from: String) -> String {
        "<\(UUID().uuidString.lowercased())@\(from.split(separator: "@").last ?? "localhost")>"
    }

    /// Whether `address` is `local@domain` with nothing in it that could end a command or a
    /// header, or stand for something else in one: no spaces, controls, brackets or quotes.
    static func isAddress(_ address: String) -> Bool {
        guard let at = address.lastIndex(of: "@"), address.utf8.count <= 254,
            at != address.startIndex, address.index(after: at) != address.endIndex
        else { return false }
        return address.unicodeScalars.allSatisfy { scalar in
            !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control
                && !notInAddresses.contains(scalar)
        }
    }

    private static let notInAddresses = Set("<>()[]{},;:\\\"`".unicodeScalars)

    /// The text as lines, whatever ends them (CRLF, LF or CR).
    private static func lines(of text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// `text` on one header line: as it is when printable ASCII, otherwise as RFC 2047
    /// encoded-words (`=?utf-8?B?…?=`) of at most 75 characters, folded onto continuation lines.
    static func encodedHeaderText(_ text: String) -> String {
        let line = text.map { $0.isNewline ? " " : $0 }
        guard !line.allSatisfy({ $0.asciiValue.map { (0x20..<0x7F).contains($0) } ?? false }) else {
            return String(line)
        }
        // 45 bytes make 60 Base64 characters; with `=?utf-8?B?` and `?=`, 72. A character is
        // never split between two words.
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in line {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=")
        return words.joined(separator: "\r\n ")
    }

    /// `date` as RFC 5322 writes it, in UTC: `Tue, 05 Mar 2024 09:07:03 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
