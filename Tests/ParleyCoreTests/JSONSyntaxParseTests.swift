import Foundation
import ParleyCore
import Testing

/// ``JSONSyntax/parse(_:)`` and ``FastDecodable`` either read a text exactly as `JSONDecoder`
/// does or decline (nil), so the usual decoding, with its errors, takes over; and the parse
/// rejects exactly what the check rejects, with the same error.
struct JSONSyntaxParseTests {
    static let texts: [String] = [
        #"{}"#, #"[]"#, #" { "a" : [ 1 , -2 , 0 , -0 , 9223372036854775807 , -9223372036854775808 ] } "#,
        #"{"s":"plain","e":"q\" b\\ s\/ \b\f\n\r\t","u":"\u00e9\u6c49\ud83d\ude42\u0000"}"#,
        #"{"deep":[[[{"x":[true,false,null]}]]],"empty":"","k\"ey":{}}"#,
        #"{"utf8":"ünïcødé 汉字 🙂👩‍👩‍👧"}"#, #""top""#, #"12"#, #"null"#,
        // Declined: numbers that JSONDecoder reads through Decimal, and a lone surrogate.
        #"{"n":1.5}"#, #"{"n":1e3}"#, #"{"n":1E-3}"#, #"{"n":9223372036854775808}"#, #"{"n":-1.0}"#,
        #"{"s":"\udc00"}"#, #"{"s":"\ud83d"}"#,
    ]

    @Test func everyTextIsReadAsJSONDecoderReadsItOrDeclined() throws {
        var declined = 0
        for text in Self.texts {
            try JSONSyntax.check(text)
            let reference = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            guard let parsed = try JSONSyntax.parse(text) else {
                declined += 1
                continue
            }
            #expect(parsed == reference, "\(text)")
        }
        #expect(declined == 7)
    }

    /// Reading a value changes nothing of what is rejected: each text fails the parse with
    /// the check's error, including a repeated key found after the reading stopped (at an
    /// unreadable number or surrogate) and one found while it went on.
    @Test func theParseRejectsWhatTheCheckRejectsWithTheSameError() throws {
        let rejected = [
            #"{"a":1,"a":2}"#, #"{"a":1,"b":1.5,"a":2}"#, #"{"a":1.5,"a":2}"#, #"{"\u0061":1,"a":2}"#,
            #"{"a":"\ud800","b":1,"a":2}"#, #"{"\ud800":1,"\ud800":2}"#, #"[1,2,]"#, #"{"a":01}"#, #"{"a":1} x"#,
            #"{"a":"\x"}"#, #"{"a":tru}"#, #"[1e999]"#, "{\"a\":\"\u{1}\"}", #"{"a":[{"b":-}]}"#, "",
            #"{"a":{"b":1.5},"a":2}"#, #"{"a":1,"b":[1.5],"a":2}"#, #"{"a":1,"\ud800":2,"a":3}"#,
            #"{"\u00E9":1,"é":2}"#,
        ]
        for text in rejected {
            var checkError: String?
            do { try JSONSyntax.check(text) } catch { checkError = "\(error)" }
            var parseError: String?
            do { _ = try JSONSyntax.parse(text) } catch { parseError = "\(error)" }
            #expect(checkError != nil, "\(text)")
            #expect(parseError == checkError, "\(text)")
        }
    }

    /// Stored values (a message's content) take the parser where it reads them as
    /// `JSONDecoder` would, and `JSONDecoder` elsewhere: the value is the same either way,
    /// and what neither reads fails as it did.
    @Test func storedValuesDecodeAsJSONDecoderDecodesThem() throws {
        for text in Self.texts + [#"{"n":1.5,"s":"\udc00"}"#, "[1] ", #"{"a":"#, #"{"a":1,}"#] {
            let reference = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            #expect((try? JSONText.decodeValue(from: text)) == reference, "\(text)")
        }
        #expect(throws: (any Error).self) { try JSONText.decodeValue(from: #"{"a":"#) }
    }

    @Test func sendPayloadsAreReadAsTheStrictDecoderReadsThemOrDeclined() throws {
        let payloads: [(String, Bool)] = [
            (#"{"conversationId":7,"clientMsgId":"c-1","kind":"text","content":{"text":"hi","t":12}}"#, true),
            (#"{"toUserId":9,"clientMsgId":"c-2","kind":"image","content":{"fileId":"f"}}"#, true),
            (#"{"conversationId":7,"toUserId":9,"clientMsgId":"c","kind":"text","content":{}}"#, true),
            (#"{"clientMsgId":"c","kind":"text","content":"just a string"}"#, true),
            // Declined: unknown, null, mistyped or missing fields, and decimal ids.
            (#"{"conversationId":7,"clientMsgId":"c","kind":"text","content":{},"extra":1}"#, false),
            (#"{"conversationId":null,"clientMsgId":"c","kind":"text","content":{}}"#, false),
            (#"{"conversationId":"7","clientMsgId":"c","kind":"text","content":{}}"#, false),
            (#"{"conversationId":7,"kind":"text","content":{}}"#, false),
            (#"{"conversationId":7,"clientMsgId":"c","content":{}}"#, false),
            (#"{"conversationId":7,"clientMsgId":"c","kind":"text"}"#, false),
            (#"{"conversationId":7.5,"clientMsgId":"c","kind":"text","content":{}}"#, false),
        ]
        try expectReadAsTheStrictDecoderReadsThem(payloads) { (fast: SendMessageRequest, strict) in
            fast.conversationId == strict.conversationId && fast.toUserId == strict.toUserId
                && fast.clientMsgId == strict.clientMsgId && fast.kind == strict.kind && fast.content == strict.content
        }
    }

    @Test func markPayloadsAreReadAsTheStrictDecoderReadsThemOrDeclined() throws {
        let payloads: [(String, Bool)] = [
            (#"{"conversationId":7,"seq":12}"#, true), (#"{"seq":0}"#, true), (#"{"seq":-1}"#, true),
            // Declined: unknown, null, mistyped or missing fields, and decimal numbers.
            (#"{"conversationId":7,"seq":1,"extra":1}"#, false), (#"{"conversationId":null,"seq":1}"#, false),
            (#"{"conversationId":7}"#, false), (#"{"seq":"1"}"#, false), (#"{"seq":1.0}"#, false),
        ]
        try expectReadAsTheStrictDecoderReadsThem(payloads) { (fast: ReadRequest, strict) in
            fast.conversationId == strict.conversationId && fast.seq == strict.seq
        }
    }

    /// Each payload is read fast exactly when `readable` says so, and then as the strict
    /// decoder reads it (`same` compares the two readings).
    private func expectReadAsTheStrictDecoderReadsThem<Payload: FastDecodable & StrictDecodable>(
        _ payloads: [(String, Bool)], same: (Payload, Payload) -> Bool
    ) throws {
        for (text, readable) in payloads {
            let fast = try JSONSyntax.parse(text).flatMap { value -> Payload? in
                guard case .object(let object) = value else { return nil }
                return Payload(fastFrom: object)
            }
            #expect((fast != nil) == readable, "\(text)")
            guard let fast else { continue }
            #expect(same(fast, try JSONText.decodeRequest(Strict<Payload>.self, from: text).value), "\(text)")
        }
    }
}
