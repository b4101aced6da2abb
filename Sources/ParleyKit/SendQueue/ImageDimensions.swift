import Foundation
import ParleyCore

/// The pixel size written in a PNG's header or a GIF's screen descriptor.
public struct ImageDimensions: Equatable, Sendable {
    public let width: Int
    public let height: Int

    /// The size read from the first bytes of an image; nil unless they are a PNG or GIF
    /// with a size of at least one pixel.
    public init?(_ head: Data) {
        let bytes = Array(head)
        func big(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func little(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        if ContentSniffer.mimeType(of: bytes) == "image/png", bytes.count >= 24 {
            (width, height) = (big(16), big(20))
        } else if ContentSniffer.mimeType(of: bytes) == "image/gif", bytes.count >= 10 {
            (width, height) = (little(6), little(8))
        } else {
            return nil
        }
        guard width > 0, height > 0 else { return nil }
    }

    /// The size of the PNG or GIF file at `path`.
    public init?(fileAt path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 32) else { return nil }
        self.init(head)
    }
}
