import ParleyCore
import Testing

@Suite struct AccountRulesTests {
    @Test(arguments: ["alice", "Bob_99", "x.y.z", "abc", String(repeating: "a", count: 32)])
    func acceptsValidUsernames(_ name: String) throws {
        try AccountRules.validateUsername(name)
    }

    @Test(arguments: ["ab", "1abc", "_abc", "a b c", "名字abc", "abc-def", String(repeating: "a", count: 33), ""])
    func rejectsInvalidUsernames(_ name: String) {
        #expect(throws: ParleyError.self) { try AccountRules.validateUsername(name) }
    }

    @Test func passwordFailuresAreNamedPrecisely() {
        let cases: [(String, ErrorCode)] = [
            ("Ab1", .passwordTooShort), ("abcdefgh", .passwordTooWeak), ("ABCDEFGH", .passwordTooWeak),
            ("12345678", .passwordTooWeak), ("!!!!!!!!", .passwordTooWeak),
            (String(repeating: "a1", count: 65), .passwordTooLong),
        ]
        for (password, code) in cases {
            #expect(throws: ParleyError.self) { try AccountRules.validatePassword(password) }
            do { try AccountRules.validatePassword(password) } catch let error as ParleyError {
                #expect(error.code == code, "\(password)")
            } catch {}
        }
        #expect(throws: Never.self) { try AccountRules.validatePassword("abcdefg1") }
        #expect(throws: Never.self) { try AccountRules.validatePassword("correct horse") }
    }

    @Test func emailAndPhoneFormats() {
        for email in ["a@b.co", "first.last+tag@example.org"] {
            #expect(throws: Never.self) { try AccountRules.validateEmail(email) }
        }
        for email in ["plain", "@example.com", "a@b", "a@.com", "a b@c.com", "a@b@c.com"] {
            #expect(throws: ParleyError.self, "\(email)") { try AccountRules.validateEmail(email) }
        }
        for phone in ["+4915112345678", "+12"] {
            #expect(throws: Never.self) { try AccountRules.validatePhone(phone) }
        }
        for phone in ["4915112345678", "+0151", "+1", "+1234567890123456", "+49 151", "+49-151"] {
            #expect(throws: ParleyError.self, "\(phone)") { try AccountRules.validatePhone(phone) }
        }
    }

    @Test func profileFieldLimits() {
        #expect(throws: Never.self) { try AccountRules.validateNickname("小明 🐼") }
        #expect(throws: ParleyError.self) { try AccountRules.validateNickname("") }
        #expect(throws: ParleyError.self) { try AccountRules.validateNickname(String(repeating: "n", count: 33)) }
        #expect(throws: ParleyError.self) { try AccountRules.validateNickname("bad\u{0007}bell") }
        #expect(throws: Never.self) { try AccountRules.validateSignature("two\nlines") }
        #expect(throws: ParleyError.self) { try AccountRules.validateSignature(String(repeating: "s", count: 141)) }
    }
}
