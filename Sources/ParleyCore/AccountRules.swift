/// The validation rules for account fields (SPEC 2.1), shared by server and clients.
///
/// Each check throws a ``ParleyError`` whose code names the field and whose message says
/// exactly what is wrong, so a client can show it next to the right input.
public enum AccountRules {
    public static let usernameLength = 3...32
    /// Password length: at least 8 characters and at most 72 bytes of UTF-8, all that
    /// bcrypt reads (a longer password would be silently cut).
    public static let passwordMinLength = 8
    public static let passwordMaxBytes = 72
    /// Longest device name recorded with a session.
    public static let deviceNameMaxLength = 64
    public static let nicknameMaxLength = 32
    public static let signatureMaxLength = 140
    public static let emailMaxLength = 254

    /// Usernames: 3–32 characters, ASCII letters, digits, `_` and `.`, starting with a
    /// letter. Uniqueness ignores case.
    public static func validateUsername(_ username: String) throws {
        guard usernameLength.contains(TextRules.length(username)) else {
            throw ParleyError(.usernameInvalid, "Username must be 3 to 32 characters long.")
        }
        guard let first = username.unicodeScalars.first, isASCIILetter(first) else {
            throw ParleyError(.usernameInvalid, "Username must start with a letter (a-z).")
        }
        guard username.unicodeScalars.allSatisfy({ isASCIILetter($0) || isASCIIDigit($0) || $0 == "_" || $0 == "." })
        else {
            throw ParleyError(.usernameInvalid, "Username may contain only letters a-z, digits, '_' and '.'.")
        }
    }

    /// Passwords: at least 8 characters, at most 72 bytes in UTF-8, no control characters,
    /// and not all of one class (lowercase, uppercase, digits, other): at least two classes
    /// must appear.
    public static func validatePassword(_ password: String) throws {
        try validatePasswordForm(password)
        if TextRules.length(password) < passwordMinLength {
            throw ParleyError(.passwordTooShort, "Password must be at least \(passwordMinLength) characters long.")
        }
        var classes = Set<Int>()
        for scalar in password.unicodeScalars {
            switch scalar {
            case "a"..."z": classes.insert(0)
            case "A"..."Z": classes.insert(1)
            case "0"..."9": classes.insert(2)
            default: classes.insert(3)
            }
        }
        if classes.count < 2 {
            throw ParleyError(
                .passwordTooWeak,
                "Password must mix at least two of: lowercase letters, uppercase letters, digits, symbols."
            )
        }
    }

    /// What a password given at login must also be: at most 72 bytes of UTF-8 (bcrypt reads
    /// no more) and free of control characters (bcrypt stops at NUL).
    public static func validatePasswordForm(_ password: String) throws {
        if password.utf8.count > passwordMaxBytes {
            throw ParleyError(
                .passwordTooLong,
                "Password must be at most \(passwordMaxBytes) bytes in UTF-8 (\(passwordMaxBytes) ASCII characters; fewer with accents, CJK or emoji)."
            )
        }
        if TextRules.containsControlCharacter(password) {
            throw ParleyError(.passwordInvalid, "Password must not contain control characters.")
        }
    }

    /// A device name given at login: 1–64 characters, no control characters.
    public static func validateDeviceName(_ device: String) throws -> String {
        try TextRules.name(device, field: "device", maxLength: deviceNameMaxLength)
    }

    /// Email: one `@`, a non-empty local part, a domain with a dot, no spaces, ≤ 254 characters.
    public static func validateEmail(_ email: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let valid =
            TextRules.length(email) <= emailMaxLength
            && parts.count == 2
            && !parts[0].isEmpty
            && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
            && !email.unicodeScalars.contains(where: { $0.properties.isWhitespace })
            && !TextRules.containsControlCharacter(email)
        guard valid else {
            throw ParleyError(.emailInvalid, "Email must look like name@example.com.")
        }
    }

    /// Phone: E.164, a `+` then 2–15 digits, the first not 0.
    public static func validatePhone(_ phone: String) throws {
        let digits = phone.unicodeScalars.dropFirst()
        let valid =
            phone.hasPrefix("+") && (2...15).contains(digits.count)
            && digits.allSatisfy(isASCIIDigit) && digits.first != "0"
        guard valid else {
            throw ParleyError(.phoneInvalid, "Phone must be in E.164 form, e.g. +4915112345678.")
        }
    }

    /// Nickname: 1–32 characters, no control characters.
    public static func validateNickname(_ nickname: String) throws {
        guard (1...nicknameMaxLength).contains(TextRules.length(nickname)),
            !TextRules.containsControlCharacter(nickname)
        else {
            throw ParleyError(.nicknameInvalid, "Nickname must be 1 to 32 characters with no control characters.")
        }
    }

    /// Signature: at most 140 characters, no control characters other than newline.
    public static func validateSignature(_ signature: String) throws {
        guard TextRules.length(signature) <= signatureMaxLength,
            !TextRules.containsControlCharacter(signature, allowing: ["\n"])
        else {
            throw ParleyError(
                .signatureInvalid, "Signature must be at most 140 characters with no control characters but newlines.")
        }
    }

    /// The form under which uniqueness is checked and logins are looked up: ASCII letters
    /// lower-cased and nothing else folded, so that no other character (the Kelvin sign
    /// U+212A lower-cases to "k") can match a username or an email written in ASCII.
    public static func canonicalUsername(_ username: String) -> String { asciiLowercased(username) }
    public static func canonicalEmail(_ email: String) -> String { asciiLowercased(email) }

    private static func asciiLowercased(_ text: String) -> String {
        // ASCII bytes never occur inside a multi-byte UTF-8 sequence, so bytes can be mapped.
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
    private static func isASCIIDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
}
