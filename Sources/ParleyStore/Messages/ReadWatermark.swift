/// How a member's read watermark moves: only forward, never past the conversation's last
/// seq. Sending a message moves the sender's watermark to it (sending implies having read
/// everything before).
public enum ReadWatermark {
    /// The watermark a read up to `requested` moves to, or nil when it would not move.
    public static func target(requested: Int64, maxSeq: Int64, current: Int64) -> Int64? {
        let target = min(requested, maxSeq)
        return target > current ? target : nil
    }
}
