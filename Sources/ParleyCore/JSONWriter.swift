import Foundation

/// Writes JSON text directly, for the values on the message hot path (a message, its
/// content, and the frames that carry it), where `JSONEncoder`'s generic machinery costs
/// more than the rest of a send. Its output decodes to the same values as `JSONEncoder`'s
/// output does; `JSONWriterTests` hold the two to that.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends JSON syntax written by the caller, such as `{"id":`.
    public mutating func raw(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends already encoded JSON text.
    public mutating func json(_ text: String) { bytes.append(contentsOf: text.utf8) }

    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func integer(_ value: Int64) { bytes.append(contentsOf: String(value).utf8) }

    public mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    /// `elements` as an array, each written by `write`.
    public mutating func array<Element>(
        _ elements: [Element], _ write: (inout JSONWriter, Element) throws -> Void
    ) rethrows {
        raw("[")
        for (index, element) in elements.enumerated() {
            if index > 0 { raw(",") }
            try write(&self, element)
        }
        raw("]")
    }

    /// A page's `,"nextCursor":…`, left out on the last page (no cursor).
    public mutating func nextCursor(_ cursor: String?) {
        guard let cursor else { return }
        raw(#","nextCursor":"#)
        string(cursor)
    }

    /// A number, written with all its digits as `JSONEncoder` writes it; NaN, which JSON
    /// cannot express, throws.
    public mutating func number(_ value: JSONNumber) throws {
        switch value {
        case .integer(let integer): self.integer(integer)
        case .decimal(let decimal):
            guard !decimal.isNaN else {
                throw EncodingError.invalidValue(
                    decimal, .init(codingPath: [], debugDescription: "NaN is not valid JSON."))
            }
            bytes.append(contentsOf: decimal.description.utf8)
        }
    }

    public mutating func value(_ value: JSONValue) throws {
        switch value {
        case .null: raw("null")
        case .bool(let flag): bool(flag)
        case .number(let number): try self.number(number)
        case .string(let string): self.string(string)
        case .array(let elements): try array(elements) { try $0.value($1) }
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in members {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                string(key)
                bytes.append(UInt8(ascii: ":"))
                try self.value(member)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A ``Message`` with the keys its `Codable` conformance uses.
    public mutating func message(_ message: Message) throws {
        raw(#"{"id":"#)
        integer(message.id.rawValue)
        raw(#","conversationId":"#)
        integer(message.conversationId.rawValue)
        raw(#","seq":"#)
        integer(message.seq)
        raw(#","senderId":"#)
        integer(message.senderId.rawValue)
        raw(#","clientMsgId":"#)
        string(message.clientMsgId)
        raw(#","kind":"#)
        string(message.kind.rawValue)
        raw(#","content":"#)
        try value(message.content)
        raw(#","sentAt":"#)
        integer(message.sentAt)
        if let quote = message.quote {
            raw(#","quote":{"id":"#)
            integer(quote.id.rawValue)
            raw(#","seq":"#)
            integer(quote.seq)
            raw(#","senderId":"#)
            integer(quote.senderId.rawValue)
            raw(#","kind":"#)
            string(quote.kind.rawValue)
            if let text = quote.text {
                raw(#","text":"#)
                string(text)
            }
            raw("}")
        }
        if let forwarded = message.forwarded {
            raw(#","forwarded":"#)
            bool(forwarded)
        }
        if let editedAt = message.editedAt {
            raw(#","editedAt":"#)
            integer(editedAt)
        }
        raw("}")
    }
}
