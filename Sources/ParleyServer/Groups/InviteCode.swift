/// Invite link codes: 22 characters of base62, about 131 bits from the system's secure
/// random source, so that codes cannot be guessed.
enum InviteCode {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<22).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// Whether `code` could be a code (checked before any lookup).
    static func isWellFormed(_ code: String) -> Bool {
        code.count == 22 && code.allSatisfy { alphabet.contains($0) }
    }
}
