import Foundation
import ParleyCore
import ParleyStore
import ParleyStoreSQLite
import ParleyTesting
import Testing

/// Presence: friends hear a user come and go, once per turn, on every device; others ask;
/// the privacy setting and blocks hide it; a reconnection within the interval is not seen;
/// a silent node's users go offline.
@Suite struct PresenceTests {
    func presences(_ socket: LiveSocket) throws -> [Presence] {
        try socket.received.filter { $0.type == "presence" }.map { try $0.payload(Presence.self) }
    }

    func presence(of users: [TestUser], as viewer: TestUser, on api: TestAPI) async throws -> [Presence] {
        let list: PresenceList = try await api.call(
            .get, "/v1/presence?userIds=\(users.map { String($0.id.rawValue) }.joined(separator: ","))",
            token: viewer.token)
        return list.users
    }

    @Test func friendsHearComingAndGoingOnceAndOthersAsk() async throws {
        try await withServer(configure: { $0.presenceInterval = .milliseconds(50) }) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            try await api.befriend(alice, bob)
            let watcher = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let stranger = try await LiveSocket.connect(api.webSocketURL, token: cyd.token)

            let phone = try await LiveSocket.connect(api.webSocketURL, token: bob.token)
            let laptop = try await LiveSocket.connect(api.webSocketURL, token: (try await api.logIn("bob")).token)
            _ = try await watcher.waitFor { $0.type == "presence" }
            #expect(try presences(watcher) == [Presence(userId: bob.id, status: .online)])
            let friends: PresenceList = try await api.call(.get, "/v1/presence", token: alice.token)
            #expect(friends.users == [Presence(userId: bob.id, status: .online)])
            #expect(try await presence(of: [bob], as: cyd, on: api) == [Presence(userId: bob.id, status: .online)])

            await phone.close()
            try await Task.sleep(for: .milliseconds(300))
            #expect(try presences(watcher).count == 1, "one device left, one still there: no change")
            await laptop.close()
            _ = try await watcher.waitFor { $0.type == "presence" && $0.text.contains("offline") }
            let gone = try #require(try presences(watcher).last)
            #expect(gone.status == .offline && gone.lastSeenAt != nil)
            #expect(try await presence(of: [bob], as: alice, on: api) == [gone])
            #expect(try presences(stranger).isEmpty, "only friends are told as it happens")

            // Contacts only: the stranger sees it hidden, the friend still sees it.
            let _: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(presence: .contacts), token: bob.token)
            #expect(try await presence(of: [bob], as: cyd, on: api).map(\.status) == [.hidden])
            #expect(try await presence(of: [bob], as: alice, on: api).map(\.status) == [.offline])
            // Nobody: the friend is told at once that it is hidden now.
            let _: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(presence: .nobody), token: bob.token)
            _ = try await watcher.waitFor { $0.type == "presence" && $0.text.contains("hidden") }
            #expect(try await presence(of: [bob], as: alice, on: api).map(\.status) == [.hidden])
            #expect(try await presence(of: [bob], as: bob, on: api).map(\.status) == [.offline])

            // A block hides it both ways, whatever the setting.
            let _: PrivacySettings = try await api.call(
                .patch, "/v1/me/privacy", UpdatePrivacyRequest(presence: .everyone), token: bob.token)
            let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(cyd.id)", token: bob.token)
            #expect(try await presence(of: [bob], as: cyd, on: api).map(\.status) == [.hidden])
            #expect(try await presence(of: [cyd], as: bob, on: api).map(\.status) == [.hidden])

            let bad = [
                "abc", "", "1,,2", "-1", "\(bob.id),\(bob.id)",
                (1...201).map(String.init).joined(separator: ","),
            ]
            for query in bad {
                let (status, text, _) = try await api.raw(.get, "/v1/presence?userIds=\(query)", token: alice.token)
                let code = try decodeJSON(ErrorBody.self, text).error.code
                #expect(status == 400 && code == .invalidField, "\(query)")
            }
            let (status, text, _) = try await api.raw(
                .patch, "/v1/me/privacy", body: #"{"presence":"friends"}"#, token: bob.token)
            #expect(status == 400 && text.contains("'presence' must be"))
        }
    }

    /// The authorisation matrix of `GET /v1/presence`: each setting × each relationship to
    /// the viewer. Only what may be seen is shown; the rest is `hidden`, never an error that
    /// would tell a block from a setting.
    @Test func whoSeesPresenceBySettingAndRelationship() async throws {
        try await withServer(configure: { $0.presenceInterval = .milliseconds(50) }) { api in
            let target = try await api.signUp("target")
            let friend = try await api.signUp("friend")
            let stranger = try await api.signUp("stranger")
            let blocked = try await api.signUp("blocked")
            let blocker = try await api.signUp("blocker")
            try await api.befriend(target, friend)
            let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(blocked.id)", token: target.token)
            let _: BlockedUser = try await api.call(.put, "/v1/blocks/\(target.id)", token: blocker.token)
            let online = try await LiveSocket.connect(api.webSocketURL, token: target.token)
            try await api.waitUntil(target, is: .online)
            let viewers = [
                ("self", target), ("friend", friend), ("stranger", stranger), ("blocked", blocked),
                ("blocker", blocker),
            ]
            let expected: [PresenceVisibility: [String]] = [
                .everyone: ["self", "friend", "stranger"], .contacts: ["self", "friend"], .nobody: ["self"],
            ]
            for (setting, allowed) in expected {
                let _: PrivacySettings = try await api.call(
                    .patch, "/v1/me/privacy", UpdatePrivacyRequest(presence: setting), token: target.token)
                for (relationship, viewer) in viewers {
                    let status = try await presence(of: [target], as: viewer, on: api).first?.status
                    #expect(
                        status == (allowed.contains(relationship) ? .online : .hidden), "\(setting) × \(relationship)")
                }
            }
            await online.close()
        }
    }

    @Test func aReconnectionWithinTheIntervalIsNotSeen() async throws {
        // A departure is written one to two intervals after it.
        let interval = Duration.seconds(3)
        try await withServer(configure: { $0.presenceInterval = interval }) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            try await api.befriend(alice, bob)
            let watcher = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let first = try await LiveSocket.connect(api.webSocketURL, token: bob.token)
            _ = try await watcher.waitFor { $0.type == "presence" }
            let leaving = ContinuousClock.now
            await first.close()
            let second = try await LiveSocket.connect(api.webSocketURL, token: bob.token)
            let reconnection = ContinuousClock.now - leaving
            try await Task.sleep(for: interval * 2 + .milliseconds(500))
            // Only a reconnection within one interval is promised to be unseen: a stalled
            // machine (CI once took longer than the 1.5 s this test allowed) may be slower.
            if reconnection < interval {
                #expect(try presences(watcher) == [Presence(userId: bob.id, status: .online)])
            }
            await second.close()
        }
    }

    /// A node that stops heartbeating (it crashed) is swept: its users with no device
    /// elsewhere go offline at its last heartbeat, and their friends hear it.
    @Test func aSilentNodesUsersGoOffline() async throws {
        guard TestBackend.postgresURL == nil else { return }  // The ghost node writes the SQLite file.
        let directory = temporaryDirectory()
        try await withServer(
            dataDirectory: directory,
            configure: {
                $0.presenceInterval = .milliseconds(50)
                // Long enough that the ghost is still alive when alice first asks, on a
                // loaded machine (a full run once took over 600 ms from its write to the ask).
                $0.nodeTimeout = .seconds(3)
            }
        ) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            try await api.befriend(alice, bob)
            let watcher = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let ghost = try SQLiteStore(directory: directory)
            let heardAt = Int64(Date().timeIntervalSince1970 * 1000)
            _ = try await ghost.updatePresence(node: "ghost", connected: [bob.id], disconnected: [], at: heardAt)
            try ghost.close()
            let friends: PresenceList = try await api.call(.get, "/v1/presence", token: alice.token)
            // Only an answer within the node timeout of the ghost's write can show it alive: a
            // stalled machine (the start of a full run stalls tests for 20 s or more) may
            // have swept it already.
            if Int64(Date().timeIntervalSince1970 * 1000) - heardAt < 3_000 {
                #expect(friends.users.map(\.status) == [.online])
            }
            _ = try await watcher.waitFor(timeout: .seconds(30)) { $0.type == "presence" }
            #expect(try presences(watcher) == [Presence(userId: bob.id, status: .offline, lastSeenAt: heardAt)])
        }
    }
}

extension TestAPI {
    /// Waits until `user`'s presence, as they see it themselves, is `status`: presence is
    /// written once an interval, later on a loaded machine.
    func waitUntil(_ user: TestUser, is status: PresenceStatus, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let list: PresenceList = try await call(.get, "/v1/presence?userIds=\(user.id)", token: user.token)
            if list.users.first?.status == status { return }
            guard ContinuousClock.now < deadline else { throw TestFailure("\(user.username) never became \(status)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
