import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238): an HOTP (RFC 4226) of the number of periods
/// since 1970, as authenticator apps make them.
public struct TOTP: Sendable {
    public enum Algorithm: String, Sendable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"
    }

    public let secret: [UInt8]
    public var digits: Int
    /// Seconds per step.
    public var period: Int64
    public var algorithm: Algorithm

    public init(secret: [UInt8], digits: Int = 6, period: Int64 = 30, algorithm: Algorithm = .sha1) {
        self.secret = secret
        self.digits = digits
        self.period = period
        self.algorithm = algorithm
    }

    /// The step (counter) that `milliseconds` since 1970 falls in.
    public func step(at milliseconds: Int64) -> Int64 { milliseconds / 1000 / period }

    /// The code for `step`, zero-padded to `digits`.
    public func code(forStep step: Int64) -> String {
        var counter = UInt64(step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let key = SymmetricKey(data: secret)
        let mac: [UInt8] =
            switch algorithm {
            case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
            case .sha256: Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
            case .sha512: Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
            }
        // Dynamic truncation (RFC 4226 §5.3).
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = mac[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7fff_ffff
        let modulo = (0..<digits).reduce(UInt64(1)) { value, _ in value * 10 }
        let value = String(UInt64(binary) % modulo)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// The code at `milliseconds` since 1970.
    public func code(at milliseconds: Int64) -> String { code(forStep: step(at: milliseconds)) }

    /// The step within `window` steps of `milliseconds` whose code `code` is (clocks drift
    /// and people type slowly), latest first; nil when none.
    public func matchingStep(of code: String, at milliseconds: Int64, window: Int64 = 1) -> Int64? {
        guard code.count == digits else { return nil }
        let now = step(at: milliseconds)
        return stride(from: now + window, through: now - window, by: -1).first { step in
            Data(self.code(forStep: step).utf8).constantTimeEquals(Data(code.utf8))
        }
    }
}

/// Base32 (RFC 4648 §6), the form authenticator apps take secrets in.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Upper-case, without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Any case, spaces and padding ignored; nil for another character.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: " ") && character != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5 | value) & 0xfff
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> (bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return output
    }
}
