/// The validation rules for account fields (SPEC 2.1), shared by server and clients.
///
/// Each check throws a ``ParleyError`` whose code names the field and whose message says
/// exactly what is wrong, so a client can show it next to the right input.
public enum AccountRules {
    public static let usernameLength = 3...32
    public static let passwordLength = 8...128
    public static let nicknameMaxLength = 32
    public static let signatureMaxLength = 140
    public static let emailMaxLength = 254

    /// Usernames: 3–32 characters, ASCII letters, digits, `_` and `.`, starting with a
    /// letter. Uniqueness ignores case.
    public static func validateUsername(_ username: String) throws {
        guard usernameLength.contains(username.count) else {
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

    /// Passwords: 8–128 characters, and not all of one class (lowercase, uppercase, digits,
    /// other): at least two classes must appear.
    public static func validatePassword(_ password: String) throws {
        if password.count < passwordLength.lowerBound {
            throw ParleyError(.passwordTooShort, "Password must be at least 8 characters long.")
        }
        if password.count > passwordLength.upperBound {
            throw ParleyError(.passwordTooLong, "Password must be at most 128 characters long.")
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

    /// Email: one `@`, a non-empty local part, a domain with a dot, no spaces, ≤ 254 characters.
    public static func validateEmail(_ email: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let valid =
            email.count <= emailMaxLength
            && parts.count == 2
            && !parts[0].isEmpty
            && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
            && !email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 })
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
        guard (1...nicknameMaxLength).contains(nickname.count), !containsControl(nickname) else {
            throw ParleyError(.nicknameInvalid, "Nickname must be 1 to 32 characters with no control characters.")
        }
    }

    /// Signature: at most 140 characters, no control characters other than newline.
    public static func validateSignature(_ signature: String) throws {
        guard signature.count <= signatureMaxLength, !containsControl(signature.replacingNewlines()) else {
            throw ParleyError(.signatureInvalid, "Signature must be at most 140 characters.")
        }
    }

    /// The form under which uniqueness is checked and logins are looked up.
    public static func canonicalUsername(_ username: String) -> String { username.lowercased() }
    public static func canonicalEmail(_ email: String) -> String { email.lowercased() }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
    private static func isASCIIDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
    private static func containsControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        String(unicodeScalars.filter { $0 != "\n" }.map(Character.init))
    }
}
