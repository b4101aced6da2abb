/// Reads text that ``JSONSyntax`` has already accepted into a ``JSONValue`` in one pass,
/// for the frames on the send path, where `JSONDecoder`'s generic machinery cost more than
/// the rest of reading a frame.
///
/// It answers nil wherever its reading could differ from `JSONDecoder`'s: a number that is
/// not a plain integer within `Int64` (those go through `Decimal` there). The caller then
/// decodes the text the usual way, so the result and every error stay exactly as before.
public enum JSONValueParser {
    /// The value of syntax-checked `text`; nil when the caller must decode it with `JSONDecoder`.
    public static func parse(_ text: String) -> JSONValue? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            guard let value = reader.value() else { return nil }
            reader.skipWhitespace()
            return reader.index == bytes.count ? value : nil
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        mutating func value() -> JSONValue? {
            skipWhitespace()
            switch current {
            case UInt8(ascii: "{")?: return object()
            case UInt8(ascii: "[")?: return array()
            case UInt8(ascii: "\"")?: return string().map(JSONValue.string)
            case UInt8(ascii: "t")?: return literal("true", .bool(true))
            case UInt8(ascii: "f")?: return literal("false", .bool(false))
            case UInt8(ascii: "n")?: return literal("null", .null)
            default: return integer()
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
            guard index + word.utf8CodeUnitCount <= bytes.count else { return nil }
            index += word.utf8CodeUnitCount
            return value
        }

        mutating func object() -> JSONValue? {
            index += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard let key = string() else { return nil }
                skipWhitespace()
                index += 1  // ':'
                guard let member = value() else { return nil }
                members[key] = member
                skipWhitespace()
                let separator = current
                index += 1
                if separator == UInt8(ascii: "}") { return .object(members) }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        }

        mutating func array() -> JSONValue? {
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let element = value() else { return nil }
                elements.append(element)
                skipWhitespace()
                let separator = current
                index += 1
                if separator == UInt8(ascii: "]") { return .array(elements) }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        }

        /// A plain integer within `Int64`; nil for anything with a fraction or an exponent.
        mutating func integer() -> JSONValue? {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            if let byte = current, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                return nil
            }
            guard
                let number = Int64(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            else { return nil }
            return .number(.integer(number))
        }

        /// A string with its escapes read; nil for an escaped lone surrogate.
        mutating func string() -> String? {
            guard current == UInt8(ascii: "\"") else { return nil }
            index += 1
            let start = index
            while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") { index += 1 }
            if current == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            var scalars = Array(bytes[start..<index])
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: scalars, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return nil }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        scalars.append(contentsOf: String(Character(scalar)).utf8)
                    default: scalars.append(escaped)  // '"', '\\' and '/'
                    }
                default: scalars.append(byte)
                }
            }
            return nil
        }

        /// The scalar of a `\u` escape (the `\u` read), joining a surrogate pair.
        mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = hex4() else { return nil }
            guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high) }
            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
            else { return nil }
            index += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | UInt32(byte - UInt8(ascii: "A") + 10)
                default: return nil
                }
            }
            return value
        }
    }
}
