import GRDB
import ParleyCore

/// Profiles of the users this device has met.
extension ClientStore {
    package func saveUser(_ user: User) throws {
        try writer.write { db in try Self.saveUser(db, user) }
    }

    static func saveUser(_ db: Database, _ user: User) throws {
        try db.execute(
            sql: """
                INSERT INTO users (id, username, nickname, signature, avatar, gender, birthday, region, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET nickname = excluded.nickname, signature = excluded.signature,
                    avatar = excluded.avatar, gender = excluded.gender, birthday = excluded.birthday,
                    region = excluded.region
                """,
            arguments: [
                user.id.rawValue, user.username, user.nickname, user.signature, user.avatar, user.gender?.rawValue,
                user.birthday, user.region, user.createdAt,
            ])
    }

    public func user(_ id: UserID) throws -> User? {
        try writer.read { db in try Self.fetchUser(db, id) }
    }

    static func fetchUser(_ db: Database, _ id: UserID) throws -> User? {
        try Row.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id.rawValue]).map {
            User(
                id: UserID($0["id"]), username: $0["username"], nickname: $0["nickname"],
                signature: $0["signature"], avatar: $0["avatar"],
                gender: ($0["gender"] as String?).map(Gender.init(rawValue:)), birthday: $0["birthday"],
                region: $0["region"], createdAt: $0["created_at"])
        }
    }
}
