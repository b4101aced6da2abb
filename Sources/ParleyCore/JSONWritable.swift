/// A value that ``JSONWriter`` writes directly; HTTP answers and frames use this instead of
/// `JSONEncoder` for the values that can be large (a sync page, a group's member list).
public protocol JSONWritable: Encodable {
    func write(to writer: inout JSONWriter) throws
}

extension JSONWritable {
    /// The value as JSON text bytes.
    public func jsonBytes() throws -> [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        try write(to: &writer)
        return writer.bytes
    }
}
