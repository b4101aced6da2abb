/// One limit: up to `burst` requests at once, then `rate` per second on average (a token
/// bucket of `burst` tokens refilled at `rate`).
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    public var burst: Int
    /// Requests per second regained.
    public var rate: Double

    public init(burst: Int, rate: Double) {
        self.burst = burst
        self.rate = rate
    }

    /// `burst` at once, and `count` more each `seconds`.
    public init(burst: Int, _ count: Int, per seconds: Double) {
        self.init(burst: burst, rate: Double(count) / seconds)
    }

    /// Parses `BURST,COUNT/UNIT` (`30,10/s`, `5,10/h`; units `s`, `min`, `h`, `d`).
    public init?(parsing text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let burst = Int(parts[0]), burst >= 1 else { return nil }
        let rate = parts[1].split(separator: "/", omittingEmptySubsequences: false)
        let units: [Substring: Double] = ["s": 1, "min": 60, "h": 3_600, "d": 86_400]
        guard rate.count == 2, let count = Int(rate[0]), count >= 1, let seconds = units[rate[1]] else { return nil }
        self.init(burst: burst, count, per: seconds)
    }

    /// As `--rate-limit` takes it: `30,10/s`.
    public var description: String {
        let (count, unit) = perUnit
        return "\(burst),\(count)/\(unit.prefix(unit == "minute" ? 3 : 1))"
    }

    /// The steady rate in words: `10 per second`.
    public var rateInWords: String {
        let (count, unit) = perUnit
        return "\(count) per \(unit)"
    }

    /// The rate as a whole count per the shortest unit that gives at least one.
    private var perUnit: (Int, String) {
        for (seconds, unit) in [(1.0, "second"), (60, "minute"), (3_600, "hour")] where rate * seconds >= 1 {
            return (Int((rate * seconds).rounded()), unit)
        }
        return (Int((rate * 86_400).rounded()), "day")
    }
}
