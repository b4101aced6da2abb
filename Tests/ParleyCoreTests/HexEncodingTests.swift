import Foundation
import ParleyCore
import Testing

struct HexEncodingTests {
    /// Every byte is written as two lowercase digits, as `%02x` writes it.
    @Test func everyByteIsTwoLowercaseDigits() {
        let bytes = (0...255).map(UInt8.init)
        #expect(bytes.hexEncoded == bytes.map { String(format: "%02x", $0) }.joined())
        #expect([UInt8]().hexEncoded == "")
        #expect([0x00, 0x0f, 0xa0, 0xff].hexEncoded == "000fa0ff")
    }
}
