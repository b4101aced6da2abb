/// What a `Range` header asks of a file of `size` bytes (RFC 9110 §14): one range of bytes,
/// the whole file (a header this server does not serve in parts: several ranges, or
/// another unit), or nothing it can give.
enum ByteRangeRequest: Equatable {
    case whole
    case part(Range<Int64>)
    case unsatisfiable

    init(_ header: String, size: Int64) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else {
            self = .whole
            return
        }
        let spec = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else {
            self = .whole
            return
        }
        let first = bounds[0].isEmpty ? nil : Int64(bounds[0])
        let last = bounds[1].isEmpty ? nil : Int64(bounds[1])
        switch (first, last, bounds[0].isEmpty, bounds[1].isEmpty) {
        case (let start?, nil, false, true):
            self = start < size ? .part(start..<size) : .unsatisfiable
        case (let start?, let end?, false, false) where start <= end:
            self = start < size ? .part(start..<min(end + 1, size)) : .unsatisfiable
        case (nil, let suffix?, true, false):
            self = suffix > 0 ? .part(max(0, size - suffix)..<size) : .unsatisfiable
        default:
            // Malformed: RFC 9110 says to ignore the header.
            self = .whole
        }
    }
}
