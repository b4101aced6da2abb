import Foundation
import ParleyCore
import Testing

/// Requests are strict RFC 8259 JSON, with numbers the server keeps exactly.
struct JSONSyntaxTests {
    @Test(arguments: [
        #"{}"#, #"[]"#, #" {"a": [1, -0, 0.5, 1e5, 2E-3, true, false, null, "x\n\u00e9\"\\\/"]} "#,
        #"{"a":{"a":{"a":1}},"b":"a"}"#, #"{"a":1,"\u0062":2}"#, "\"汉字😀\"", #"123456789012345678901234567890"#,
        #"1.00000000000000000000000000000000000000000000"#, #"0.000000000000000000000000000000000000000001"#,
        #"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17}"#,
    ])
    func acceptsStrictJSON(_ text: String) throws {
        try JSONSyntax.check(text)
    }

    @Test(arguments: [
        (#"{"a":1,}"#, "trailing comma"), (#"[1,]"#, "trailing comma"), (#"{"a":1,"a":2}"#, "duplicate key 'a'"),
        (#"{"a":1,"\u0061":2}"#, "duplicate key 'a'"), (#"{"a":1} {}"#, "after the JSON value"), (#"01"#, "leading zero"),
        (#"{"a":NaN}"#, "unexpected character"), (#"// c"#, "unexpected character"), (#"{'a':1}"#, "key must be a string"),
        (#"["a"#, "unterminated string"), ("\"tab\there\"", "control character"), (#"1."#, "digit expected"),
        (#"1234567890123456789012345678901234567890"#, "significant digits"), (#"1e101"#, "beyond 1e±100"),
        (#"1e-101"#, "beyond 1e±100"), (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), "nesting"),
        (#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":17}"#, "duplicate key 'k3'"),
        ("", "missing"),
    ])
    func refusesEverythingElseSayingWhat(_ text: String, _ reason: String) {
        #expect {
            try JSONSyntax.check(text)
        } throws: { error in
            guard let error = error as? ParleyError else { return false }
            return error.code == .invalidJSON && error.message.contains(reason)
        }
    }

    @Test func unknownContentNumbersRoundTripExactly() throws {
        let text = #"{"a":9007199254740993,"b":123456789012345678901234567890,"c":0.1,"d":-2.5e-7}"#
        let value = try JSONText.decodeRequest(JSONValue.self, from: text)
        let again = try JSONText.decode(JSONValue.self, from: try JSONText.encode(value))
        #expect(again == value)
        #expect(value.objectValue?["a"]?.decimalValue == Decimal(string: "9007199254740993"))
        #expect(try JSONText.encode(value).contains("123456789012345678901234567890"))
    }
}
