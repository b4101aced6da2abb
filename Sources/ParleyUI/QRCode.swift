/// A QR code (ISO/IEC 18004) of some bytes, at error-correction level M, in versions 1 to
/// 10 (up to 213 bytes): what a screen or a terminal draws for an authenticator app to scan
/// (an `otpauth://` URI).
public struct QRCode: Sendable, Equatable {
    /// 21 + 4 × (version − 1) modules a side.
    public let size: Int
    public let version: Int
    /// The mask pattern (0–7) chosen for the fewest penalty points.
    public let mask: Int
    private let modules: [Bool]

    /// Whether the module at `row`, `column` is dark.
    public func isDark(row: Int, column: Int) -> Bool { modules[row * size + column] }

    /// The code of `bytes` in the smallest version that holds them, with the best mask;
    /// nil when they do not fit in version 10.
    public init?(_ bytes: [UInt8]) {
        guard
            let version = (1...10).first(where: {
                Self.dataCapacity(version: $0) >= bytes.count + 2 + ($0 >= 10 ? 1 : 0)
            })
        else { return nil }
        self.init(bytes, version: version, mask: nil)
    }

    /// The code of `text` as UTF-8.
    public init?(_ text: String) { self.init(Array(text.utf8)) }

    /// `bytes` in `version` with `mask` (nil: the one with the fewest penalty points).
    init?(_ bytes: [UInt8], version: Int, mask: Int?) {
        guard (1...10).contains(version) else { return nil }
        var grid = QRGrid(version: version)
        guard let codewords = Self.codewords(of: bytes, version: version) else { return nil }
        grid.place(codewords)
        let chosen = mask ?? (0..<8).min { grid.masked($0).penalty < grid.masked($1).penalty }!
        let final = grid.masked(chosen)
        self.size = final.size
        self.version = version
        self.mask = chosen
        self.modules = final.dark
    }

    // MARK: Codewords

    /// Level M: the error-correction codewords per block, and the data codewords of each
    /// block, by version.
    static let blocks: [Int: (ecPerBlock: Int, data: [Int])] = [
        1: (10, [16]), 2: (16, [28]), 3: (26, [44]), 4: (18, [32, 32]), 5: (24, [43, 43]),
        6: (16, [27, 27, 27, 27]), 7: (18, [31, 31, 31, 31]), 8: (22, [38, 38, 39, 39]),
        9: (22, [36, 36, 36, 37, 37]), 10: (26, [43, 43, 43, 43, 44]),
    ]

    static func dataCapacity(version: Int) -> Int { blocks[version]!.data.reduce(0, +) }

    /// Byte mode, the count, the bytes, the terminator and padding, split into blocks with
    /// their Reed–Solomon codewords, interleaved.
    static func codewords(of bytes: [UInt8], version: Int) -> [UInt8]? {
        let (ecPerBlock, dataSizes) = blocks[version]!
        let capacity = dataSizes.reduce(0, +)
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: version >= 10 ? 16 : 8)
        for byte in bytes { bits.append(Int(byte), count: 8) }
        guard bits.count <= capacity * 8 else { return nil }
        bits.append(0, count: min(4, capacity * 8 - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var data = bits.bytes
        var pad: UInt8 = 0xEC
        while data.count < capacity {
            data.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        var dataBlocks: [[UInt8]] = []
        var start = 0
        for size in dataSizes {
            dataBlocks.append(Array(data[start..<start + size]))
            start += size
        }
        let ecBlocks = dataBlocks.map { ReedSolomon.remainder(of: $0, count: ecPerBlock) }
        var result: [UInt8] = []
        for index in 0..<dataSizes.max()! {
            for block in dataBlocks where index < block.count { result.append(block[index]) }
        }
        for index in 0..<ecPerBlock {
            for block in ecBlocks { result.append(block[index]) }
        }
        return result
    }
}

/// Bits written most significant first.
struct BitBuffer {
    private(set) var bits: [Bool] = []
    var count: Int { bits.count }

    mutating func append(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append(value >> shift & 1 == 1) }
    }

    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<min(start + 8, bits.count)].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
    }
}

/// Reed–Solomon over GF(256) with the polynomial x⁸ + x⁴ + x³ + x² + 1, as QR codes use it.
enum ReedSolomon {
    static let (exponents, logarithms): ([UInt8], [Int]) = {
        var exponents = [UInt8](repeating: 0, count: 512)
        var logarithms = [Int](repeating: 0, count: 256)
        var value = 1
        for power in 0..<255 {
            exponents[power] = UInt8(value)
            logarithms[value] = power
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        for power in 255..<512 { exponents[power] = exponents[power - 255] }
        return (exponents, logarithms)
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        a == 0 || b == 0 ? 0 : exponents[logarithms[Int(a)] + logarithms[Int(b)]]
    }

    /// The generator polynomial of degree `count`, leading coefficient first (then `count`
    /// coefficients).
    static func generator(_ count: Int) -> [UInt8] {
        var polynomial: [UInt8] = [1]
        for power in 0..<count {
            var next = [UInt8](repeating: 0, count: polynomial.count + 1)
            for (index, coefficient) in polynomial.enumerated() {
                next[index] ^= coefficient
                next[index + 1] ^= multiply(coefficient, exponents[power])
            }
            polynomial = next
        }
        return polynomial
    }

    /// The `count` error-correction codewords of `data`.
    static func remainder(of data: [UInt8], count: Int) -> [UInt8] {
        let generator = generator(count)
        var remainder = [UInt8](repeating: 0, count: count)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for index in 0..<count { remainder[index] ^= multiply(generator[index + 1], factor) }
        }
        return remainder
    }
}
