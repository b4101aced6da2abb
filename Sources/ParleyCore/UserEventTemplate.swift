/// One event body bound for many users' streams, encoded once: the users' events differ only
/// in `seq`, so the JSON text the store writes (and the gateway's `event` frames carry) is
/// encoded once with a placeholder seq, and each user's copy puts its own seq in the
/// placeholder's place. Adding a member to a group of 500 appends 500 events; encoding them
/// one by one was most of the cost.
public struct UserEventTemplate: Sendable {
    public let body: UserEventBody
    public let at: Int64
    /// The text with the placeholder seq, split around it (a copy is `before + seq + after`);
    /// nil when the placeholder's digits also appear elsewhere in the text (a name could hold
    /// them), in which case each copy is encoded whole.
    public let parts: Parts?

    /// The text before and after the seq.
    public struct Parts: Sendable {
        public let before: String
        public let after: String
    }

    private static let placeholder = Int64.min

    public init(_ body: UserEventBody, at: Int64) throws {
        self.body = body
        self.at = at
        let text = Array(try JSONText.encode(UserEvent(seq: Self.placeholder, at: at, body)).utf8)
        let marker = Array(String(Self.placeholder).utf8)
        let found = Self.occurrences(of: marker, in: text)
        parts =
            found.count == 1
            ? Parts(
                before: String(decoding: text[..<found[0]], as: UTF8.self),
                after: String(decoding: text[(found[0] + marker.count)...], as: UTF8.self)) : nil
    }

    /// Where `marker` starts in `text`, stopping at the second occurrence.
    private static func occurrences(of marker: [UInt8], in text: [UInt8]) -> [Int] {
        var found: [Int] = []
        var start = 0
        while found.count < 2, start + marker.count <= text.count {
            if text[start] == marker[0], text[start..<start + marker.count].elementsEqual(marker) {
                found.append(start)
                start += marker.count
            } else {
                start += 1
            }
        }
        return found
    }

    /// The text for the event with `seq`.
    public func json(seq: Int64) throws -> String {
        guard let parts else { return try JSONText.encode(event(seq: seq)) }
        return parts.before + String(seq) + parts.after
    }

    /// The event value with `seq`.
    public func event(seq: Int64) -> UserEvent { UserEvent(seq: seq, at: at, body) }
}
