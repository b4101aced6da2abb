import Testing

@testable import ParleyCore

/// The text rules' control-character check compares code points instead of reading
/// Unicode's property tables; it must agree with them everywhere.
struct TextRulesTests {
    @Test func theControlCheckAgreesWithUnicodesGeneralCategoryForEveryScalar() {
        var disagreements: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if TextRules.isControl(scalar) != (scalar.properties.generalCategory == .control) {
                disagreements.append(value)
            }
        }
        #expect(disagreements.isEmpty)
    }

    @Test func allowedControlCharactersPassAndOthersDoNot() {
        #expect(!TextRules.containsControlCharacter("line\nnext\ttab", allowing: ["\n", "\t"]))
        #expect(TextRules.containsControlCharacter("line\nnext\r", allowing: ["\n"]))
        #expect(TextRules.containsControlCharacter("a\u{85}b"))
        #expect(!TextRules.containsControlCharacter("你好 👋 \u{A0}\u{200B}"))
    }
}
