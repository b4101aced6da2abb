extension Duration {
    /// Whole milliseconds (wire timestamps and token lifetimes are in milliseconds).
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
