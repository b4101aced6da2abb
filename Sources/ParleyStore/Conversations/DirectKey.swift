import ParleyCore

/// The key that makes a direct conversation unique per pair of users, whoever opened it:
/// `"<smaller id>:<larger id>"`. Every backend stores it in a unique column.
public enum DirectKey {
    public static func make(_ one: UserID, _ other: UserID) -> String {
        "\(min(one, other).rawValue):\(max(one, other).rawValue)"
    }

    /// The user of `key` who is not `viewer`.
    public static func peer(in key: String, of viewer: UserID) -> UserID? {
        key.split(separator: ":").compactMap { Int64($0) }.map { UserID($0) }.first { $0 != viewer }
    }
}
