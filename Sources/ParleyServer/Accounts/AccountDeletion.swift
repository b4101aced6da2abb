import ParleyCore
import ParleyStore

/// What an account leaves behind before it ends: its groups and its contacts. Every step
/// goes through the same store operations (and so the same events to others) as when the user
/// does it by hand, and each is safe to run again.
struct AccountDeletion: Sendable {
    let store: any ParleyStore
    let clock: WallClock

    /// Leaves every group and drops every friend, request, block and friend group of `userId`.
    func leaveEverything(_ userId: UserID) async throws {
        try await leaveGroups(userId)
        try await dropContacts(userId)
    }

    /// Leaves each group; one the user owns passes to its longest-standing admin, else its
    /// longest-standing member, and is dissolved when nobody else is in it.
    private func leaveGroups(_ userId: UserID) async throws {
        var groups: [ConversationID] = []
        var cursor: ConversationListCursor?
        while true {
            let page = try await store.conversations(of: userId, after: cursor, limit: 200)
            groups += page.filter { $0.kind == .group }.map(\.id)
            guard let last = page.last, page.count == 200 else { break }
            cursor = ConversationListCursor(after: last)
        }
        for group in groups {
            let members = try await store.conversation(group, for: userId).members
            do {
                if members.first(where: { $0.userId == userId })?.role == .owner {
                    let heirs = members.filter { $0.userId != userId }.sorted {
                        ($0.role == .admin ? 0 : 1, $0.joinedAt, $0.userId.rawValue)
                            < ($1.role == .admin ? 0 : 1, $1.joinedAt, $1.userId.rawValue)
                    }
                    guard let heir = heirs.first else {
                        _ = try await store.changeGroup(group, .dissolve, by: userId, at: clock.now())
                        continue
                    }
                    _ = try await store.changeGroup(group, .transfer(to: heir.userId), by: userId, at: clock.now())
                }
                _ = try await store.changeGroup(group, .removeMember(userId), by: userId, at: clock.now())
            } catch let error as ParleyError where error.code == .groupDissolved {
                // A dissolved group keeps its history and has nobody to hand over to.
            }
        }
    }

    /// Unfriends everyone (both sides), rejects requests to the user, ends the user's own
    /// open requests, lifts their blocks and deletes their friend groups.
    private func dropContacts(_ userId: UserID) async throws {
        for contact in try await store.contacts(of: userId, in: nil) {
            try await store.removeContact(of: userId, contact.user.id, at: clock.now())
        }
        let requests = try await store.friendRequests(of: userId, at: clock.now())
        for request in requests.incoming {
            _ = try await store.answerFriendRequest(request.id, by: userId, .reject, at: clock.now())
        }
        // A block ends the blocker's own request to the blocked at once (it can no longer be
        // accepted); lifted again at once, it leaves only that.
        for request in requests.outgoing {
            _ = try await store.block(request.to.id, by: userId, at: clock.now())
            try await store.unblock(request.to.id, by: userId, at: clock.now())
        }
        for blocked in try await store.blockedUsers(of: userId) {
            try await store.unblock(blocked.user.id, by: userId, at: clock.now())
        }
        for group in try await store.friendGroups(of: userId) {
            try await store.deleteFriendGroup(group.id, of: userId, at: clock.now())
        }
    }
}
