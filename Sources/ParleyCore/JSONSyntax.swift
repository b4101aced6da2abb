/// A strict RFC 8259 check of a request body or frame, before it is decoded.
///
/// Foundation's decoder is lenient where a protocol must not be: it accepts a trailing comma
/// and keeps the first of two equal keys, so two programs could read one request two ways.
/// Every request therefore passes this check first. It also bounds numbers to what the
/// server keeps exactly (``maxSignificantDigits`` digits, exponents within
/// ±``maxExponent``), so a number in message content comes back as it was sent.
public enum JSONSyntax {
    /// Most significant digits a number may have (what `Decimal` holds exactly).
    public static let maxSignificantDigits = 38
    /// Largest decimal exponent, either sign, of a non-zero number.
    public static let maxExponent = 100
    /// Smallest exponent `Decimal` has for its last digit.
    static let maxDecimalExponent = 128
    /// Deepest nesting of arrays and objects.
    public static let maxDepth = 64

    /// Throws ``ParleyError`` `invalid_json` saying what is wrong and at which byte offset.
    public static func check(_ text: String) throws {
        var text = text
        try text.withUTF8 { try check(UnsafeRawBufferPointer($0)) }
    }

    /// Throws ``ParleyError`` `invalid_json` saying what is wrong and at which byte offset.
    public static func check(_ bytes: UnsafeRawBufferPointer) throws {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        try scanner.value(depth: 0)
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw scanner.fail("unexpected text after the JSON value") }
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        func fail(_ reason: String) -> ParleyError {
            ParleyError(.invalidJSON, "The body is not valid JSON: \(reason) at byte \(index).")
        }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func expect(_ literal: StaticString) throws {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw fail("unknown literal") }
            for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
                throw fail("unknown literal")
            }
            index += count
        }

        mutating func value(depth: Int) throws {
            guard let byte = current else { throw fail("a value is missing") }
            switch byte {
            case UInt8(ascii: "{"): try object(depth: depth + 1)
            case UInt8(ascii: "["): try array(depth: depth + 1)
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "t"): try expect("true")
            case UInt8(ascii: "f"): try expect("false")
            case UInt8(ascii: "n"): try expect("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            default: throw fail("unexpected character")
            }
        }

        mutating func object(depth: Int) throws {
            if try opensEmpty(depth: depth, closing: "}") { return }
            var keys = KeySet()
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw fail("an object key must be a string") }
                let keyStart = index
                let key = try string()
                guard keys.insert(key) else {
                    index = keyStart
                    throw fail("duplicate key '\(key.decoded)'")
                }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw fail("':' expected") }
                index += 1
                skipWhitespace()
                try value(depth: depth)
                if try closes(with: "}") { return }
            }
        }

        mutating func array(depth: Int) throws {
            if try opensEmpty(depth: depth, closing: "]") { return }
            while true {
                skipWhitespace()
                try value(depth: depth)
                if try closes(with: "]") { return }
            }
        }

        /// Steps past an opening bracket; true when the object or array is empty (and its
        /// closing bracket consumed too).
        mutating func opensEmpty(depth: Int, closing: Unicode.Scalar) throws -> Bool {
            guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
            index += 1
            skipWhitespace()
            guard current == UInt8(ascii: closing) else { return false }
            index += 1
            return true
        }

        /// After a member or element: true at the closing bracket (consumed), false after a
        /// comma that another member follows; throws otherwise (a trailing comma included).
        mutating func closes(with closing: Unicode.Scalar) throws -> Bool {
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?:
                index += 1
                skipWhitespace()
                if current == UInt8(ascii: closing) { throw fail("trailing comma") }
                return false
            case UInt8(ascii: closing)?:
                index += 1
                return true
            default: throw fail("',' or '\(closing)' expected")
            }
        }

        /// A string's raw bytes (between the quotes), and whether it has escapes.
        mutating func string() throws -> RawKey {
            index += 1
            let start = index
            var escaped = false
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    let key = RawKey(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), escaped: escaped)
                    index += 1
                    return key
                case UInt8(ascii: "\\"):
                    escaped = true
                    index += 1
                    switch current {
                    case UInt8(ascii: "\"")?, UInt8(ascii: "\\")?, UInt8(ascii: "/")?, UInt8(ascii: "b")?,
                        UInt8(ascii: "f")?, UInt8(ascii: "n")?, UInt8(ascii: "r")?, UInt8(ascii: "t")?:
                        index += 1
                    case UInt8(ascii: "u")?:
                        index += 1
                        for _ in 0..<4 {
                            guard let digit = current, digit.isHexDigit else { throw fail("bad \\u escape") }
                            index += 1
                        }
                    default: throw fail("bad escape")
                    }
                case 0..<0x20:
                    throw fail("unescaped control character in a string")
                default:
                    index += 1
                }
            }
            throw fail("unterminated string")
        }

        /// A number, within the digits and exponent the server keeps exactly.
        mutating func number() throws {
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, first.isDigit else { throw fail("a digit expected") }
            if first == UInt8(ascii: "0"), index + 1 < bytes.count, bytes[index + 1].isDigit {
                throw fail("leading zero in a number")
            }
            // Significant digits without leading or trailing zeros, and the decimal exponent of
            // the first of them (1 for "12.5", -2 for "0.003").
            var significant = 0
            var zerosPending = 0
            var firstDigitExponent: Int?
            var position = 0  // exponent of the next digit, relative to the point
            var integerDigits = 0
            while let digit = current, digit.isDigit {
                integerDigits += 1
                index += 1
            }
            position = integerDigits - 1
            for offset in (index - integerDigits)..<index {
                note(bytes[offset], at: position, &significant, &zerosPending, &firstDigitExponent)
                position -= 1
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard let digit = current, digit.isDigit else { throw fail("a digit expected after '.'") }
                while let digit = current, digit.isDigit {
                    note(digit, at: position, &significant, &zerosPending, &firstDigitExponent)
                    position -= 1
                    index += 1
                }
            }
            var exponent = 0
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                let negative = current == UInt8(ascii: "-")
                if current == UInt8(ascii: "+") || negative { index += 1 }
                guard let digit = current, digit.isDigit else { throw fail("a digit expected in an exponent") }
                while let digit = current, digit.isDigit {
                    exponent = min(exponent * 10 + Int(digit - UInt8(ascii: "0")), 1_000_000)
                    index += 1
                }
                if negative { exponent = -exponent }
            }
            // Decimal keeps 38 digits from the first significant one to the last one written
            // (trailing zeros of a fraction included), with that last digit's exponent
            // within -128...127.
            let lastDigitExponent = position + 1 + exponent
            let digitsKept = (firstDigitExponent ?? lastDigitExponent) - (position + 1) + 1
            guard significant <= maxSignificantDigits, digitsKept <= maxSignificantDigits else {
                throw fail("a number with more than \(maxSignificantDigits) significant digits")
            }
            if let firstDigitExponent,
                abs(firstDigitExponent + exponent) > maxExponent || lastDigitExponent < -maxDecimalExponent
            {
                throw fail("a number beyond 1e±\(maxExponent)")
            }
        }

        private func note(
            _ digit: UInt8, at position: Int, _ significant: inout Int, _ zerosPending: inout Int,
            _ firstDigitExponent: inout Int?
        ) {
            if digit == UInt8(ascii: "0") {
                if firstDigitExponent != nil { zerosPending += 1 }
            } else {
                if firstDigitExponent == nil { firstDigitExponent = position }
                significant += zerosPending + 1
                zerosPending = 0
            }
        }
    }

    /// An object key as it appears in the text.
    struct RawKey {
        let bytes: UnsafeRawBufferPointer
        let escaped: Bool

        /// The key with escapes resolved, for comparing keys written differently.
        var decoded: String {
            let raw = String(decoding: bytes, as: UTF8.self)
            guard escaped else { return raw }
            return (try? JSONText.decode(String.self, from: "\"\(raw)\"")) ?? raw
        }
    }

    /// The keys of one object so far, compared as Swift strings (canonical equivalence, as
    /// Foundation's decoder compares them: "café" precomposed and decomposed are one key).
    struct KeySet {
        private var keys = Set<String>()

        mutating func insert(_ key: RawKey) -> Bool { keys.insert(key.decoded).inserted }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    fileprivate var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
