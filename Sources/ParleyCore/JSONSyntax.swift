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
        _ = try scan(bytes, reading: false)
    }

    /// Checks `text` as ``check(_:)-(String)`` does and, in the same pass, reads it into a
    /// ``JSONValue``, for every WebSocket frame and stored content, where
    /// `JSONDecoder`'s generic machinery cost more than the rest of reading them.
    ///
    /// The value is nil wherever this reading could differ from `JSONDecoder`'s: a number
    /// that is not a plain integer within `Int64` (those go through `Decimal` there), or a
    /// string with an escaped lone surrogate. The caller then decodes the text the usual way,
    /// so the result and every error stay exactly as `JSONDecoder` has them.
    public static func parse(_ text: String) throws -> JSONValue? {
        var text = text
        return try text.withUTF8 { try scan(UnsafeRawBufferPointer($0), reading: true) }
    }

    private static func scan(_ bytes: UnsafeRawBufferPointer, reading: Bool) throws -> JSONValue? {
        var scanner = Scanner(bytes: bytes, reading: reading)
        scanner.skipWhitespace()
        let value = try scanner.value(depth: 0)
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw scanner.fail("unexpected text after the JSON value") }
        return scanner.readable ? value : nil
    }

    /// Checks a text byte by byte; when `reading`, also builds its value, as long as the
    /// value stays ``readable``.
    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        let reading: Bool
        var index = 0
        /// False once something was met that only `JSONDecoder` reads exactly.
        var readable = true

        init(bytes: UnsafeRawBufferPointer, reading: Bool) {
            self.bytes = bytes
            self.reading = reading
        }

        /// Whether values are still being built.
        var building: Bool { reading && readable }

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

        /// The value at `index`, for a caller that is ``building``: nil where its reading
        /// stopped, and not to be used when not building (literals and empty containers are
        /// returned either way).
        mutating func value(depth: Int) throws -> JSONValue? {
            guard let byte = current else { throw fail("a value is missing") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""):
                let text = try string()
                return building ? read(text).map(JSONValue.string) : nil
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw fail("unexpected character")
            }
        }

        mutating func object(depth: Int) throws -> JSONValue? {
            if try opensEmpty(depth: depth, closing: "}") { return .object([:]) }
            var keys = KeySet()
            var members: [String: JSONValue] = [:]
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw fail("an object key must be a string") }
                let keyStart = index
                let key = try string()
                // While building, the members find a repeated key; the two compare keys alike.
                let name = building ? read(key) : nil
                if let name {
                    guard members[name] == nil else {
                        index = keyStart
                        throw fail("duplicate key '\(name)'")
                    }
                } else if !keys.insert(key.decoded, after: members.keys) {
                    index = keyStart
                    throw fail("duplicate key '\(key.decoded)'")
                }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw fail("':' expected") }
                index += 1
                skipWhitespace()
                let member = try value(depth: depth)
                if let name {
                    if let member, building {
                        members[name] = member
                    } else {
                        _ = keys.insert(name, after: members.keys)  // the reading stopped in this member
                    }
                }
                if try closes(with: "}") { return building ? .object(members) : nil }
            }
        }

        mutating func array(depth: Int) throws -> JSONValue? {
            if try opensEmpty(depth: depth, closing: "]") { return .array([]) }
            var elements: [JSONValue] = []
            while true {
                skipWhitespace()
                let element = try value(depth: depth)
                if let element, building { elements.append(element) }
                if try closes(with: "]") { return building ? .array(elements) : nil }
            }
        }

        /// The text of a string as `JSONDecoder` reads it; nil (and no longer ``readable``)
        /// for an escaped lone surrogate, which `JSONDecoder` alone decides about.
        mutating func read(_ raw: RawKey) -> String? {
            guard raw.escaped else { return String(decoding: raw.bytes, as: UTF8.self) }
            guard let text = raw.unescaped else {
                readable = false
                return nil
            }
            return text
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

        /// A number, within the digits and exponent the server keeps exactly; while
        /// ``building``, its value when it is a plain integer within `Int64`, else nil (and no
        /// longer ``readable``).
        mutating func number() throws -> JSONValue? {
            let start = index
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
            guard building else { return nil }
            let digits = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            guard digits.allSatisfy({ $0.isDigit || $0 == UInt8(ascii: "-") }),
                let integer = Int64(String(decoding: digits, as: UTF8.self))
            else {
                readable = false
                return nil
            }
            return .number(.integer(integer))
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

        /// The text with its escapes (already checked) read; nil for an escaped lone
        /// surrogate.
        var unescaped: String? {
            var scalars: [UInt8] = []
            scalars.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                guard byte == UInt8(ascii: "\\") else {
                    scalars.append(byte)
                    continue
                }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape(at: &index) else { return nil }
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default: scalars.append(escaped)  // '"', '\\' and '/'
                }
            }
            return String(decoding: scalars, as: UTF8.self)
        }

        /// The scalar of a `\u` escape whose four digits start at `index` (the `\u` read),
        /// joining a surrogate pair.
        private func unicodeEscape(at index: inout Int) -> Unicode.Scalar? {
            let high = hex4(at: &index)
            guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high) }
            guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { return nil }
            index += 2
            let low = hex4(at: &index)
            guard (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }

        private func hex4(at index: inout Int) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                index += 1
                let digit =
                    byte <= UInt8(ascii: "9")
                    ? byte - UInt8(ascii: "0") : (byte | 0x20) - UInt8(ascii: "a") + 10
                value = value << 4 | UInt32(digit)
            }
            return value
        }
    }

    /// The keys of one object so far, compared as Swift strings (canonical equivalence, as
    /// Foundation's decoder compares them: "café" precomposed and decomposed are one key).
    struct KeySet {
        private var keys = Set<String>()
        private var holdsEarlier = false

        /// False when `key` (escapes resolved) is there already, or among `earlier`: the keys
        /// of the members read before the reading of the object stopped.
        mutating func insert(_ key: String, after earlier: Dictionary<String, JSONValue>.Keys) -> Bool {
            if !holdsEarlier {
                keys.formUnion(earlier)
                holdsEarlier = true
            }
            return keys.insert(key).inserted
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    fileprivate var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
