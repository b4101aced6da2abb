import Foundation
import ParleyCore
import Testing

/// Requests are strict RFC 8259 JSON, with numbers the server keeps exactly.
struct JSONSyntaxTests {
    @Test(arguments: [
        #"{}"#, #"[]"#, #" {"a": [1, -0, 0.5, 1e5, 2E-3, true, false, null, "x\n\u00e9\"\\\/"]} "#,
        #"{"a":{"a":{"a":1}},"b":"a"}"#, #"{"a":1,"\u0062":2}"#, "\"汉字😀\"", #"123456789012345678901234567890"#,
        #"1.0000000000000000000000000000000000000"#, #"0.000000000000000000000000000000000000000001"#,
        #"1.234567890123456789012345678901234567e-90"#, "1e100", "-1e-100",
        #"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17}"#,
    ])
    func acceptsStrictJSON(_ text: String) throws {
        try JSONSyntax.check(text)
    }

    @Test(arguments: [
        (#"{"a":1,}"#, "trailing comma"), (#"[1,]"#, "trailing comma"), (#"{"a":1,"a":2}"#, "duplicate key 'a'"),
        (#"{"a":1,"\u0061":2}"#, "duplicate key 'a'"), (#"{"a":1} {}"#, "after the JSON value"),
        (#"01"#, "leading zero"),
        (#"{"a":NaN}"#, "unexpected character"), (#"// c"#, "unexpected character"),
        (#"{'a':1}"#, "key must be a string"),
        (#"["a"#, "unterminated string"), ("\"tab\there\"", "control character"), (#"1."#, "digit expected"),
        (#"1234567890123456789012345678901234567890"#, "significant digits"), (#"1e101"#, "beyond 1e±100"),
        (#"1e-101"#, "beyond 1e±100"), (#"1.00000000000000000000000000000000000000000000"#, "significant digits"),
        (#"1.2345678901234567890123456789012345678e-100"#, "beyond 1e±100"),
        (#"1.00000000000000000000000000000e-100"#, "beyond 1e±100"),
        ("{\"caf\u{E9}\":1,\"cafe\u{301}\":2}", "duplicate key"),
        (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), "nesting"),
        (
            #"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":17}"#,
            "duplicate key 'k3'"
        ),
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

    /// Every number the check accepts decodes, and comes back with the value it was sent with.
    @Test(arguments: [
        "9007199254740993", "123456789012345678901234567890", "0.1", "-2.5e-7", "1.0000000000000001",
        "0.99999999999999999", "123.00000000000001", "1e100", "-1e-100", "1.234567890123456789012345678901234567e-90",
        "0.000000000000000000000000000000000000000001", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "1.0", "-0",
    ])
    func acceptedNumbersComeBackExactly(_ literal: String) throws {
        let value = try JSONText.decodeRequest(JSONValue.self, from: "[\(literal)]")
        guard case .array(let items) = value, let number = items.first else {
            Issue.record("\(literal) did not decode to a number")
            return
        }
        let expected = try #require(Decimal(string: literal))
        #expect(number.decimalValue == expected, "\(literal)")
        var writer = JSONWriter()
        try writer.value(number)
        #expect(Decimal(string: writer.text) == expected, "\(literal) written as \(writer.text)")
    }
}
