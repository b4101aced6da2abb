import Foundation
import ParleyServer
import Testing

/// TOTP against the test vectors of RFC 6238 (appendix B) and RFC 4226 (appendix D), and
/// Base32 against RFC 4648's.
@Suite struct TOTPTests {
    static let sha1 = Array("12345678901234567890".utf8)
    static let sha256 = Array("12345678901234567890123456789012".utf8)
    static let sha512 = Array("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    @Test(
        arguments: [
            (59, "94287082", "46119246", "90693936"),
            (1_111_111_109, "07081804", "68084774", "25091201"),
            (1_111_111_111, "14050471", "67062674", "99943326"),
            (1_234_567_890, "89005924", "91819424", "93441116"),
            (2_000_000_000, "69279037", "90698825", "38618901"),
            (20_000_000_000, "65353130", "77737706", "47863826"),
        ] as [(Int64, String, String, String)])
    func rfc6238(_ vector: (seconds: Int64, sha1: String, sha256: String, sha512: String)) {
        let milliseconds = vector.seconds * 1000
        #expect(TOTP(secret: Self.sha1, digits: 8).code(at: milliseconds) == vector.sha1)
        #expect(TOTP(secret: Self.sha256, digits: 8, algorithm: .sha256).code(at: milliseconds) == vector.sha256)
        #expect(TOTP(secret: Self.sha512, digits: 8, algorithm: .sha512).code(at: milliseconds) == vector.sha512)
    }

    @Test func rfc4226() {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
        ]
        let hotp = TOTP(secret: Self.sha1)
        #expect((0..<10).map { hotp.code(forStep: Int64($0)) } == expected)
    }

    @Test func aCodeMatchesItsStepAndTheNeighboursOnly() {
        let totp = TOTP(secret: Self.sha1)
        let now: Int64 = 1_800_000_000_000
        let step = totp.step(at: now)
        #expect(totp.matchingStep(of: totp.code(forStep: step), at: now) == step)
        #expect(totp.matchingStep(of: totp.code(forStep: step - 1), at: now) == step - 1)
        #expect(totp.matchingStep(of: totp.code(forStep: step + 1), at: now) == step + 1)
        #expect(totp.matchingStep(of: totp.code(forStep: step - 2), at: now) == nil)
        #expect(totp.matchingStep(of: "12345", at: now) == nil)
    }

    @Test func base32() {
        let vectors = [
            ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI"),
        ]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded.lowercased() + "===") == Array(plain.utf8))
        }
        #expect(Base32.decode("MZ1W") == nil, "1 is not in the alphabet")
    }
}
