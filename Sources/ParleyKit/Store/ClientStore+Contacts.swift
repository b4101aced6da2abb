import Foundation
import GRDB
import ParleyCore

extension ClientStore {
    /// Which contact event was applied last (nil: none yet): a mark to give
    /// ``replaceContacts(_:groups:requests:blocked:unchangedSince:)``.
    package func contactEventMark() throws -> String? { try value(Self.contactEventSeqKey) }

    /// Replaces the friends, friend groups, open requests and blocks held with the server's
    /// lists, unless a contact event was applied since `mark` was read (the lists may predate
    /// it, and replacing would lose it): then nothing changes and the answer is false.
    package func replaceContacts(
        _ contacts: [Contact], groups: [FriendGroup], requests: FriendRequestList, blocked: [BlockedUser],
        unchangedSince mark: String?
    ) throws -> Bool {
        try writer.write { db in
            guard
                try String.fetchOne(
                    db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [Self.contactEventSeqKey]) == mark
            else { return false }
            try db.execute(
                sql: "DELETE FROM contacts; DELETE FROM friend_groups; DELETE FROM friend_requests; DELETE FROM blocks")
            for contact in contacts { try Self.saveContact(db, contact) }
            for group in groups { try Self.saveFriendGroup(db, group) }
            for request in requests.incoming + requests.outgoing + requests.ignored {
                try Self.saveFriendRequest(db, request)
            }
            for block in blocked { try Self.saveBlock(db, block) }
            try Self.setValue(db, "1", for: Self.contactsKnownKey)
            return true
        }
    }

    /// Notes that contact event `seq` was applied (see ``contactEventMark()``). The mark only
    /// moves forward: a resync replays pushed events, older than one applied since.
    static func noteContactEvent(_ db: Database, seq: Int64) throws {
        let noted = try String.fetchOne(
            db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [contactEventSeqKey]
        ).flatMap { Int64($0) }
        if seq > noted ?? 0 { try setValue(db, String(seq), for: contactEventSeqKey) }
    }

    /// `contact` as a `contact.updated` of `seq` left it, without the friend groups a newer
    /// event removed (their removal took them from every friend held, this one not yet).
    static func withoutGroupsRemovedAfter(_ seq: Int64, _ contact: Contact, _ db: Database) throws -> Contact {
        let removed = Set(
            try Int64.fetchAll(
                db, sql: "SELECT id FROM event_marks WHERE topic = ? AND removed = 1 AND seq > ?",
                arguments: [EventTopic.friendGroup.rawValue, seq]))
        var kept = contact
        kept.groups.removeAll { removed.contains($0.rawValue) }
        return kept
    }

    /// Whether the contact book was fetched whole since the last snapshot sync (events keep
    /// it current after that).
    package func contactsAreKnown() throws -> Bool { try value(Self.contactsKnownKey) != nil }

    package func saveContact(_ contact: Contact) throws { try writer.write { try Self.saveContact($0, contact) } }
    package func removeContact(_ userId: UserID) throws { try writer.write { try Self.removeContact($0, userId) } }
    package func saveFriendRequest(_ request: FriendRequest) throws {
        try writer.write { try Self.saveFriendRequest($0, request) }
    }
    package func saveBlock(_ block: BlockedUser) throws { try writer.write { try Self.saveBlock($0, block) } }
    package func removeBlock(_ userId: UserID) throws { try writer.write { try Self.removeBlock($0, userId) } }
    package func saveFriendGroup(_ group: FriendGroup) throws {
        try writer.write { try Self.saveFriendGroup($0, group) }
    }
    package func removeFriendGroup(_ id: FriendGroupID) throws {
        try writer.write { try Self.removeFriendGroup($0, id) }
    }

    /// The contact book of user `me` as held, with requests as they stand at `now`.
    public func contactBook(of me: UserID, at now: Int64) throws -> ContactBook {
        try writer.read { db in try Self.fetchContactBook(db, of: me, at: now) }
    }

    /// The contact book now, then again after every change to it.
    public func observeContactBook(of me: UserID, now: @escaping @Sendable () -> Int64)
        -> AsyncValueObservation<ContactBook>
    {
        ValueObservation.tracking { db in try Self.fetchContactBook(db, of: me, at: now()) }
            .removeDuplicates().values(in: writer)
    }

    static func saveContact(_ db: Database, _ contact: Contact) throws {
        try saveUser(db, contact.user)
        try db.execute(
            sql: """
                INSERT INTO contacts (user_id, remark, since, groups) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET remark = excluded.remark, since = excluded.since,
                    groups = excluded.groups
                """,
            arguments: [contact.user.id.rawValue, contact.remark, contact.since, try JSONText.encode(contact.groups)])
    }

    static func saveFriendGroup(_ db: Database, _ group: FriendGroup) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO friend_groups (id, name, created_at) VALUES (?, ?, ?)",
            arguments: [group.id.rawValue, group.name, group.createdAt])
    }

    /// Deletes a friend group and takes every friend out of it.
    static func removeFriendGroup(_ db: Database, _ id: FriendGroupID) throws {
        try db.execute(sql: "DELETE FROM friend_groups WHERE id = ?", arguments: [id.rawValue])
        for row in try Row.fetchAll(db, sql: "SELECT user_id, groups FROM contacts") {
            let groups = try JSONText.decode([FriendGroupID].self, from: row["groups"])
            guard groups.contains(id) else { continue }
            try db.execute(
                sql: "UPDATE contacts SET groups = ? WHERE user_id = ?",
                arguments: [try JSONText.encode(groups.filter { $0 != id }), row["user_id"] as Int64])
        }
    }

    static func removeContact(_ db: Database, _ userId: UserID) throws {
        try db.execute(sql: "DELETE FROM contacts WHERE user_id = ?", arguments: [userId.rawValue])
    }

    static func saveFriendRequest(_ db: Database, _ request: FriendRequest) throws {
        try saveUser(db, request.from)
        try saveUser(db, request.to)
        try db.execute(
            sql: "INSERT OR REPLACE INTO friend_requests (id, request) VALUES (?, ?)",
            arguments: [request.id.rawValue, try JSONText.encode(request)])
    }

    /// Records a block; a blocked user is no longer a friend.
    static func saveBlock(_ db: Database, _ block: BlockedUser) throws {
        try removeContact(db, block.user.id)
        try saveUser(db, block.user)
        try db.execute(
            sql: "INSERT OR REPLACE INTO blocks (user_id, since) VALUES (?, ?)",
            arguments: [block.user.id.rawValue, block.since])
    }

    static func removeBlock(_ db: Database, _ userId: UserID) throws {
        try db.execute(sql: "DELETE FROM blocks WHERE user_id = ?", arguments: [userId.rawValue])
    }

    private static func fetchContactBook(_ db: Database, of me: UserID, at now: Int64) throws -> ContactBook {
        let friends = try Row.fetchAll(db, sql: "SELECT * FROM contacts").compactMap { row -> Contact? in
            try fetchUser(db, UserID(row["user_id"])).map {
                Contact(
                    user: $0, remark: row["remark"], since: row["since"],
                    groups: try JSONText.decode([FriendGroupID].self, from: row["groups"]))
            }
        }
        let groups = try Row.fetchAll(db, sql: "SELECT * FROM friend_groups ORDER BY id").map {
            FriendGroup(id: FriendGroupID($0["id"]), name: $0["name"], createdAt: $0["created_at"])
        }
        let requests = try String.fetchAll(db, sql: "SELECT request FROM friend_requests").map {
            try JSONText.decode(FriendRequest.self, from: $0)
        }
        let blocked = try Row.fetchAll(db, sql: "SELECT * FROM blocks").compactMap { row -> BlockedUser? in
            try fetchUser(db, UserID(row["user_id"])).map { BlockedUser(user: $0, since: row["since"]) }
        }
        return ContactBook(
            friends: friends, groups: groups, requests: requests, blocked: blocked, of: me, at: now)
    }
}
