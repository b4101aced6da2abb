import Foundation

/// The little of S3's XML answers that ``S3BlobStore`` reads: the text of elements by name. S3
/// writes elements without attributes or CDATA, and escapes text with entities and character
/// references, which are undone here.
enum S3XML {
    /// The text of each `<name>…</name>` element of `xml`, in order.
    static func texts(of name: String, in xml: String) -> [String] {
        let opening = "<\(name)>"
        let closing = "</\(name)>"
        var texts: [String] = []
        var rest = xml[...]
        while let start = rest.range(of: opening), let end = rest[start.upperBound...].range(of: closing) {
            texts.append(unescaped(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return texts
    }

    /// The text of the first `<name>…</name>` element of `xml`.
    static func text(of name: String, in xml: String) -> String? {
        texts(of: name, in: xml).first
    }

    /// `text` with `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#N;` and `&#xH;` replaced by the
    /// characters they stand for.
    static func unescaped(_ text: Substring) -> String {
        var result = ""
        var rest = text
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            if let semicolon = rest[ampersand...].firstIndex(of: ";"),
                let character = character(named: rest[rest.index(after: ampersand)..<semicolon])
            {
                result.append(character)
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[rest.index(after: ampersand)...]
            }
        }
        return result + rest
    }

    private static func character(named entity: Substring) -> Character? {
        switch entity {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let code =
                entity.hasPrefix("#x")
                ? UInt32(entity.dropFirst(2), radix: 16)
                : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
            return code.flatMap(Unicode.Scalar.init).map(Character.init)
        }
    }
}
