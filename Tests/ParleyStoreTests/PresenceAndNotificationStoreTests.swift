import Foundation
import ParleyCore
import ParleyStore
import Testing

/// The storage contract of presence, notification preferences and push tokens.
extension StoreContractTests {
    /// Makes each pair of `users` after the first friends with the first.
    func befriend(_ store: any ParleyStore, _ owner: UserID, _ others: [UserID]) async throws {
        _ = try await store.updatePrivacy(userId: owner, UpdatePrivacyRequest(addMe: .anyone), at: Self.now)
        for other in others {
            _ = try await store.requestFriend(
                from: other, to: owner, message: "", at: Self.now, expiresAt: Self.now + 1_000)
        }
    }

    /// Presence is per node: a user turns online with their first device anywhere and
    /// offline with their last, each turn reported once; a silent node is swept and its
    /// users with no device elsewhere go offline at its last heartbeat.
    @Test(arguments: StoreBackend.available)
    func presenceTurnsOnceAcrossNodesAndSilentNodesAreSwept(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "cyd")
        let (alice, bob, cyd) = (users[0], users[1], users[2])
        let t = Self.now
        for node in ["a", "b", "c"] { #expect(try await store.heartbeat(node: node, at: t) == false, "new") }
        #expect(try await store.heartbeat(node: "a", at: t + 2) == true)
        #expect(
            try await store.updatePresence(node: "a", connected: [alice, bob], disconnected: [], at: t)
                == [
                    PresenceChange(userId: alice, online: true, at: t),
                    PresenceChange(userId: bob, online: true, at: t),
                ])
        // Alice also on node b: no turn. Leaving node a while on b: no turn either.
        #expect(try await store.updatePresence(node: "b", connected: [alice], disconnected: [], at: t + 1).isEmpty)
        #expect(try await store.updatePresence(node: "a", connected: [], disconnected: [alice], at: t + 2).isEmpty)
        // Leaving a node one was never on changes nothing.
        #expect(try await store.updatePresence(node: "c", connected: [], disconnected: [cyd], at: t + 2).isEmpty)
        #expect(
            try await store.updatePresence(node: "b", connected: [], disconnected: [alice], at: t + 3)
                == [PresenceChange(userId: alice, online: false, at: t + 3)])
        #expect(
            try await store.presence(of: [alice], for: alice) == [
                Presence(userId: alice, status: .offline, lastSeenAt: t + 3)
            ])

        // Node a (last heard of at t + 2) goes silent while bob is on it; node b heartbeats
        // and holds cyd; node c never wrote a device.
        _ = try await store.updatePresence(node: "b", connected: [cyd], disconnected: [], at: t + 10)
        #expect(try await store.heartbeat(node: "b", at: t + 40_000))
        #expect(
            try await store.sweepSilentNodes(before: t + 30_001)
                == [PresenceChange(userId: bob, online: false, at: t + 2)])
        #expect(try await store.sweepSilentNodes(before: t + 30_001).isEmpty)
        #expect(try await store.presence(of: [bob, cyd], for: bob).map(\.status) == [.offline, .online])
        #expect(try await store.presence(of: [bob], for: bob).first?.lastSeenAt == t + 2)
        // A swept node that was alive after all learns it must write its users again.
        #expect(try await store.heartbeat(node: "a", at: t + 40_001) == false)
        // A device written by a node that is not registered (it wrote, was swept, and died)
        // goes once it is older than the deadline.
        _ = try await store.updatePresence(node: "gone", connected: [bob], disconnected: [], at: t + 40_002)
        #expect(try await store.sweepSilentNodes(before: t + 40_000).isEmpty, "not older than the deadline yet")
        for node in ["a", "b"] { #expect(try await store.heartbeat(node: node, at: t + 70_004)) }
        #expect(
            try await store.sweepSilentNodes(before: t + 70_003)
                == [PresenceChange(userId: bob, online: false, at: t + 40_002)])
        try await store.close()
    }

    /// Who sees a user's presence: themselves always; friends unless `nobody`; others only
    /// with `everyone`; nobody across a block. Watchers are the friends, unless `nobody`.
    @Test(arguments: StoreBackend.available)
    func presenceFollowsTheSettingAndBlocks(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "friend", "stranger", "blocker")
        let (alice, friend, stranger, blocker) = (users[0], users[1], users[2], users[3])
        try await befriend(store, alice, [friend])
        _ = try await store.block(alice, by: blocker, at: Self.now)
        _ = try await store.updatePresence(node: "n", connected: [alice], disconnected: [], at: Self.now)
        func seen(by viewer: UserID) async throws -> PresenceStatus? {
            try await store.presence(of: [alice], for: viewer).first?.status
        }
        #expect(try await seen(by: stranger) == .online)
        #expect(try await seen(by: friend) == .online)
        #expect(try await seen(by: blocker) == .hidden)
        #expect(try await store.presenceWatchers(of: alice) == [friend])
        #expect(try await store.friendsPresence(for: friend) == [Presence(userId: alice, status: .online)])

        _ = try await store.updatePrivacy(userId: alice, UpdatePrivacyRequest(presence: .contacts), at: Self.now)
        #expect(try await seen(by: stranger) == .hidden)
        #expect(try await seen(by: friend) == .online)
        #expect(try await store.user(id: alice)?.privacy.presence == .contacts)

        _ = try await store.updatePrivacy(userId: alice, UpdatePrivacyRequest(presence: .nobody), at: Self.now)
        #expect(try await seen(by: friend) == .hidden)
        #expect(try await seen(by: alice) == .online)
        #expect(try await store.presenceWatchers(of: alice).isEmpty)
        // Unknown ids are left out; the order asked is kept.
        #expect(
            try await store.presence(of: [UserID(9_999), friend, alice], for: friend).map(\.userId) == [friend, alice])
        try await store.close()
    }

    /// Preferences start at their defaults, change field by field and read back; a token
    /// belongs to one session and moves to the session that registers it last.
    @Test(arguments: StoreBackend.available)
    func notificationSettingsAndPushTokensAreKept(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob")
        let (alice, bob) = (users[0], users[1])
        #expect(try await store.notificationSettings(of: alice) == .defaults)
        let quiet = [QuietPeriod(start: "22:00", end: "07:30", days: [1, 2, 3, 4, 5])]
        let updated = try await store.updateNotificationSettings(
            of: alice, UpdateNotificationSettingsRequest(timeZone: "Asia/Shanghai", quietHours: quiet, group: false),
            at: Self.now)
        #expect(updated == NotificationSettings(timeZone: "Asia/Shanghai", quietHours: quiet, group: false))
        #expect(try await store.notificationSettings(of: alice) == updated)
        let second = try await store.updateNotificationSettings(
            of: alice, UpdateNotificationSettingsRequest(preview: false), at: Self.now)
        #expect(second.group == false && second.preview == false && second.quietHours == quiet)

        let phone = try await session(store, alice)
        let tablet = try await session(store, bob)
        let request = RegisterPushTokenRequest(platform: .apns, token: "ab01", appId: "app.parley", sandbox: true)
        let token = try await store.registerPushToken(request, for: phone, of: alice, at: Self.now)
        #expect(
            token == PushToken(platform: .apns, token: "ab01", appId: "app.parley", sandbox: true, createdAt: Self.now))
        #expect(
            try await store.pushAudience(of: [alice], in: nil, from: bob, at: Self.now).recipients.map(\.userId) == [
                alice
            ])
        // The same device now signed in as bob: the token moves.
        _ = try await store.registerPushToken(request, for: tablet, of: bob, at: Self.now)
        #expect(try await store.pushAudience(of: [alice], in: nil, from: bob, at: Self.now).recipients.isEmpty)
        #expect(
            try await store.pushAudience(of: [bob], in: nil, from: alice, at: Self.now).recipients.map(\.userId) == [
                bob
            ])
        try await store.removePushToken("ab01", platform: .apns)
        #expect(try await store.pushAudience(of: [bob], in: nil, from: alice, at: Self.now).recipients.isEmpty)
        _ = try await store.registerPushToken(request, for: tablet, of: bob, at: Self.now)
        try await store.removePushToken(of: tablet)
        #expect(try await store.pushAudience(of: [bob], in: nil, from: alice, at: Self.now).recipients.isEmpty)
        try await store.close()
    }

    /// A push goes to the members other than the sender who have a token on a live session
    /// (not revoked, not expired),
    /// no device connected and no block with the sender; it carries their preferences, whether
    /// they muted the conversation, and the unread count of their unmuted conversations.
    @Test(arguments: StoreBackend.available)
    func pushAudienceIsTheOfflineUnblockedMembersWithTheirBadge(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "cyd", "dan", "eve")
        let (alice, bob, cyd, dan, eve) = (users[0], users[1], users[2], users[3], users[4])
        let group = try await store.createGroup(
            name: "team", ownerId: alice, memberIds: [bob, cyd, dan, eve], memberLimit: 100, at: Self.now
        ).id
        var sessions: [UserID: SessionID] = [:]
        for user in users {
            let session = try await session(store, user)
            sessions[user] = session
            _ = try await store.registerPushToken(
                RegisterPushTokenRequest(platform: .apns, token: "aa\(user.rawValue)", appId: "app.parley"),
                for: session, of: user, at: Self.now)
        }
        _ = try await store.updatePresence(node: "n", connected: [cyd], disconnected: [], at: Self.now)
        _ = try await store.block(alice, by: dan, at: Self.now)
        _ = try await store.revokeSession(sessions[eve]!, of: eve, at: Self.now)
        let expired = try await session(store, eve, expiresAt: Self.now - 1)
        _ = try await store.registerPushToken(
            RegisterPushTokenRequest(platform: .apns, token: "ee", appId: "app.parley"), for: expired, of: eve,
            at: Self.now)
        // Bob's tablet holds a token too: he is one recipient with both.
        _ = try await store.registerPushToken(
            RegisterPushTokenRequest(platform: .apns, token: "bb", appId: "app.parley"),
            for: try await session(store, bob), of: bob, at: Self.now)
        _ = try await store.updateSettings(UpdateSettingsRequest(muted: true), of: group, for: bob, at: Self.now)
        let direct = try await store.appendMessage(
            try text("hi", to: .directWith(bob), from: alice, id: "d1")
        ).message.conversationId
        for id in ["g1", "g2"] {
            _ = try await store.appendMessage(try text("hello", to: .conversation(group), from: alice, id: id))
        }

        let audience = try await store.pushAudience(of: nil, in: group, from: alice, at: Self.now)
        #expect(audience.actorName == "alice" && audience.groupName == "team")
        #expect(audience.recipients.map(\.userId) == [bob])
        let bobs = try #require(audience.recipients.first)
        #expect(bobs.muted && bobs.settings == .defaults)
        #expect(bobs.tokens.map(\.token) == ["aa\(bob.rawValue)", "bb"])
        // The group is muted, so only the direct message counts.
        #expect(bobs.badge == 1)
        let toDirect = try await store.pushAudience(of: nil, in: direct, from: alice, at: Self.now)
        #expect(toDirect.groupName == nil && toDirect.recipients.map(\.muted) == [false])
        try await store.close()
    }

    private func session(_ store: any ParleyStore, _ user: UserID, expiresAt: Int64 = Self.now + 60_000) async throws
        -> SessionID
    {
        let id = UUID().uuidString
        return try await store.createSession(
            NewSession(
                userId: user, device: "phone", ip: "127.0.0.1",
                tokens: SessionTokens(
                    accessTokenHash: "a" + id, accessExpiresAt: expiresAt, refreshTokenHash: "r" + id,
                    refreshExpiresAt: expiresAt), createdAt: Self.now)
        ).id
    }
}
