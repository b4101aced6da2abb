/// The modules of a QR code being built: the function patterns (finders, timing, alignment,
/// format and version areas), the data placed around them, and a mask applied to the data.
struct QRGrid: Sendable {
    let version: Int
    let size: Int
    private(set) var dark: [Bool]
    /// Modules of function patterns: never data, never masked.
    private var reserved: [Bool]

    static let alignmentCenters: [Int: [Int]] = [
        1: [], 2: [6, 18], 3: [6, 22], 4: [6, 26], 5: [6, 30], 6: [6, 34], 7: [6, 22, 38], 8: [6, 24, 42],
        9: [6, 26, 46], 10: [6, 28, 50],
    ]

    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        dark = Array(repeating: false, count: size * size)
        reserved = dark
        for (row, column) in [(0, 0), (0, size - 7), (size - 7, 0)] { drawFinder(row, column) }
        for index in 8..<size - 8 {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        // Every pair of centers but the three under the finders.
        let centers = Self.alignmentCenters[version]!
        for (i, row) in centers.enumerated() {
            for (j, column) in centers.enumerated() {
                let last = centers.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignment(row, column)
            }
        }
        set(size - 8, 8, true)  // the dark module
        // Format areas, written once the mask is known.
        for index in 0..<9 {
            reserve(8, index)
            reserve(index, 8)
        }
        for index in 0..<8 {
            reserve(8, size - 1 - index)
            reserve(size - 1 - index, 8)
        }
        if version >= 7 { drawVersion() }
    }

    func isDark(_ row: Int, _ column: Int) -> Bool { dark[row * size + column] }
    private func isReserved(_ row: Int, _ column: Int) -> Bool { reserved[row * size + column] }

    private mutating func set(_ row: Int, _ column: Int, _ value: Bool) {
        dark[row * size + column] = value
        reserved[row * size + column] = true
    }

    private mutating func reserve(_ row: Int, _ column: Int) { reserved[row * size + column] = true }

    /// A finder with its white separator, top-left corner at `row`, `column`.
    private mutating func drawFinder(_ row: Int, _ column: Int) {
        for dy in -1...7 {
            for dx in -1...7 {
                let (y, x) = (row + dy, column + dx)
                guard (0..<size).contains(y), (0..<size).contains(x) else { continue }
                let ring = max(abs(dy - 3), abs(dx - 3))
                set(y, x, ring != 2 && ring != 4)
            }
        }
    }

    private mutating func drawAlignment(_ row: Int, _ column: Int) {
        for dy in -2...2 {
            for dx in -2...2 { set(row + dy, column + dx, max(abs(dy), abs(dx)) != 1) }
        }
    }

    /// The 18-bit version information, in the two 6 × 3 areas (versions 7 and up).
    private mutating func drawVersion() {
        var remainder = version
        for _ in 0..<12 { remainder = remainder << 1 ^ (remainder >> 11 & 1) * 0x1F25 }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let bit = bits >> index & 1 == 1
            let (a, b) = (size - 11 + index % 3, index / 3)
            set(a, b, bit)
            set(b, a, bit)
        }
    }

    /// The 15-bit format information (level M, `mask`) in its two copies.
    private mutating func drawFormat(mask: Int) {
        let data = 0b00 << 3 | mask  // level M is 00
        var remainder = data
        for _ in 0..<10 { remainder = remainder << 1 ^ (remainder >> 9 & 1) * 0x537 }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { bits >> index & 1 == 1 }
        // Beside the top-left finder: down column 8, then along row 8 to the left.
        for index in 0...5 { set(index, 8, bit(index)) }
        set(7, 8, bit(6))
        set(8, 8, bit(7))
        set(8, 7, bit(8))
        for index in 9..<15 { set(8, 14 - index, bit(index)) }
        // Again: along row 8 under the top-right finder, and up column 8 by the bottom-left.
        for index in 0..<8 { set(8, size - 1 - index, bit(index)) }
        for index in 8..<15 { set(size - 15 + index, 8, bit(index)) }
        set(size - 8, 8, true)
    }

    /// Writes the codewords' bits upward and downward in two-column strips from the bottom
    /// right, skipping function patterns and the timing column.
    mutating func place(_ codewords: [UInt8]) {
        var bits = BitBuffer()
        for byte in codewords { bits.append(Int(byte), count: 8) }
        var index = 0
        var column = size - 1
        var upward = true
        while column > 0 {
            if column == 6 { column -= 1 }
            for step in 0..<size {
                let row = upward ? size - 1 - step : step
                for x in [column, column - 1] where !isReserved(row, x) {
                    dark[row * size + x] = index < bits.count && bits.bits[index]
                    index += 1
                }
            }
            upward.toggle()
            column -= 2
        }
    }

    /// This grid with mask `mask` applied to its data and its format information written.
    func masked(_ mask: Int) -> QRGrid {
        var grid = self
        for row in 0..<size {
            for column in 0..<size where !isReserved(row, column) && Self.flips(mask, row, column) {
                grid.dark[row * size + column].toggle()
            }
        }
        grid.drawFormat(mask: mask)
        return grid
    }

    static func flips(_ mask: Int, _ row: Int, _ column: Int) -> Bool {
        switch mask {
        case 0: (row + column) % 2 == 0
        case 1: row % 2 == 0
        case 2: column % 3 == 0
        case 3: (row + column) % 3 == 0
        case 4: (row / 2 + column / 3) % 2 == 0
        case 5: row * column % 2 + row * column % 3 == 0
        case 6: (row * column % 2 + row * column % 3) % 2 == 0
        default: ((row + column) % 2 + row * column % 3) % 2 == 0
        }
    }

    /// The penalty points of ISO/IEC 18004 §8.8.2: runs, 2 × 2 blocks, finder-like
    /// patterns, and the balance of dark and light.
    var penalty: Int {
        var points = 0
        for line in 0..<size {
            for horizontal in [true, false] {
                let modules = (0..<size).map { horizontal ? isDark(line, $0) : isDark($0, line) }
                var run = 1
                for index in 1..<size {
                    if modules[index] == modules[index - 1] {
                        run += 1
                        if run == 5 { points += 3 } else if run > 5 { points += 1 }
                    } else {
                        run = 1
                    }
                }
                let pattern = [true, false, true, true, true, false, true]
                for start in 0...(size - 7) where Array(modules[start..<start + 7]) == pattern {
                    let before = start >= 4 && !modules[start - 4..<start].contains(true)
                    let after = start + 11 <= size && !modules[start + 7..<start + 11].contains(true)
                    if before || after { points += 40 }
                }
            }
        }
        for row in 0..<size - 1 {
            for column in 0..<size - 1 {
                let value = isDark(row, column)
                if isDark(row, column + 1) == value, isDark(row + 1, column) == value,
                    isDark(row + 1, column + 1) == value
                {
                    points += 3
                }
            }
        }
        let darkCount = dark.filter { $0 }.count
        points += abs(darkCount * 20 - size * size * 10) / (size * size) * 10
        return points
    }
}
