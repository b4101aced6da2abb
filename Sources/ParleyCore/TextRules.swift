/// The rules every text field shares, so that each is written once.
///
/// A "character" in every documented limit is a Unicode code point (scalar value): an
/// emoji built of several code points (a flag, a skin tone, a family) counts each of them,
/// so a limit in characters also bounds the bytes (at most 4 per character in UTF-8).
/// No field accepts NUL or another control character (Unicode category Cc: C0, DEL, C1)
/// except where a field says so (newline in a signature; newline, carriage return and tab
/// in message text): such characters truncate text in C APIs and corrupt what people see.
public enum TextRules {
    /// The length of `text` as the protocol counts it: Unicode code points.
    public static func length(_ text: String) -> Int { text.unicodeScalars.count }

    /// Whether `id` is a file id (1 to ``Limits/maxFileIDLength`` printable ASCII characters,
    /// no spaces) or empty, the form that removes a file (an avatar).
    public static func isFileIDOrEmpty(_ id: String) -> Bool {
        id.utf8.count <= Limits.maxFileIDLength && id.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7f }
    }

    /// Whether `text` has a control character other than those in `allowed`.
    public static func containsControlCharacter(_ text: String, allowing allowed: Set<Unicode.Scalar> = []) -> Bool {
        text.unicodeScalars.contains { isControl($0) && !allowed.contains($0) }
    }

    /// Whether `scalar` is a control character (general category Cc). Unicode fixes Cc as
    /// exactly these 65 code points, and every message's text is checked, so they are
    /// compared, not looked up in the property tables.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x1F || (0x7F...0x9F).contains(scalar.value)
    }

    /// A one-line name (device, group): trimmed of surrounding whitespace, 1 to `maxLength`
    /// characters, no control character; throws `code` naming `field` otherwise.
    public static func name(_ text: String, field: String, maxLength: Int, code: ErrorCode = .invalidField) throws
        -> String
    {
        let trimmed = text.trimmingWhitespace()
        guard (1...maxLength).contains(length(trimmed)) else {
            throw ParleyError(code, "'\(field)' must be 1 to \(maxLength) characters long.")
        }
        guard !containsControlCharacter(trimmed) else {
            throw ParleyError(code, "'\(field)' must not contain control characters.")
        }
        return trimmed
    }

    /// A text of several lines (a description, an announcement, a note): trimmed, 0 to
    /// `maxLength` characters, no control character but newline, carriage return and tab.
    public static func paragraph(_ text: String, field: String, maxLength: Int) throws -> String {
        let trimmed = text.trimmingWhitespace()
        guard length(trimmed) <= maxLength else {
            throw ParleyError(.invalidField, "'\(field)' must be at most \(maxLength) characters long.")
        }
        guard !containsControlCharacter(trimmed, allowing: ["\n", "\r", "\t"]) else {
            throw ParleyError(
                .invalidField,
                "'\(field)' must not contain control characters other than newline, carriage return and tab.")
        }
        return trimmed
    }
}

extension String {
    /// The string without leading and trailing white space (Unicode `White_Space`).
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
