import Foundation
import ParleyCore
import ParleyKitTransport
import ParleyTesting
import Synchronization
import Testing

@testable import ParleyKit

extension LiveServerSuites {
    /// `client.presence` and `client.notifications` against a real server.
    @Suite(.serialized) struct PresenceAndNotificationsSDKTests {
        @Test func aFriendsPresenceStreamsAsTheyComeAndGo() async throws {
            let (server, alice, bob, _) = try await aliceAndBob()
            let bobId = try #require(await bob.session.currentUser?.id)
            let request = try await alice.contacts.sendRequest(to: bobId)
            try await bob.contacts.accept(request.id)
            let heard = EntryLog<Presence>()
            let listening = Task { for await presence in await alice.presence.updates() { heard.append(presence) } }
            await alice.connect()
            // After connecting, the client fetches its friends' presence: bob is offline, never seen.
            try await eventually { heard.all == [Presence(userId: bobId, status: .offline)] }
            await bob.connect()
            try await eventually("bob came online") { heard.all.last == Presence(userId: bobId, status: .online) }
            #expect(await alice.presence.presence(of: bobId)?.status == .online)
            await bob.disconnect()
            try await eventually("bob went offline") { heard.all.last?.status == .offline }
            let lastSeen = try #require(heard.all.last?.lastSeenAt)
            #expect(
                try await alice.presence.fetch([bobId]) == [
                    Presence(userId: bobId, status: .offline, lastSeenAt: lastSeen)
                ])
            // An ex-friend is forgotten at the next refresh (no frames come for them any more).
            try await alice.contacts.remove(bobId)
            #expect(try await alice.presence.refresh().isEmpty)
            #expect(await alice.presence.presence(of: bobId) == nil)
            listening.cancel()
            await alice.disconnect()
            await server.stop()
        }

        /// A restarted server makes no storm: its users reconnect before the old node is swept,
        /// so their friends never see them go offline and come back.
        @Test func aServerRestartIsNotSeenAsEveryoneLeaving() async throws {
            func start(port: Int? = nil, data: String? = nil) async throws -> InProcessServer {
                try await InProcessServer.start(port: port, dataDirectory: data) {
                    $0.presenceInterval = .milliseconds(50)
                    // Long enough for the clients to reconnect on a loaded machine.
                    $0.nodeTimeout = .seconds(9)
                }
            }
            var server = try await start()
            let (port, data) = (server.port, server.dataDirectory)
            let alice = try makeClient(server.url)
            let bob = try makeClient(server.url)
            try await signUp(alice, "alice")
            try await signUp(bob, "bob")
            let bobId = try #require(await bob.session.currentUser?.id)
            try await bob.contacts.accept(try await alice.contacts.sendRequest(to: bobId).id)
            let heard = EntryLog<Presence>()
            let listening = Task { for await presence in await alice.presence.updates() { heard.append(presence) } }
            for client in [alice, bob] { await client.connect() }
            try await eventually("alice sees bob online") { heard.all.last?.status == .online }

            let before = heard.all.count
            await server.stop()
            server = try await start(port: port, data: data)
            for client in [alice, bob] { await client.networkAvailable() }
            try await eventually { await bob.connection.status == .connected }
            try await eventually { await alice.connection.status == .connected }
            // Past the old node's timeout and a sweep.
            try await Task.sleep(for: .seconds(13))
            #expect(heard.all.dropFirst(before).allSatisfy { $0.status == .online }, "\(heard.all)")
            #expect(try await alice.presence.refresh().map(\.status) == [.online])
            listening.cancel()
            for client in [alice, bob] { await client.disconnect() }
            await server.stop()
        }

        /// A presence frame that arrives while a refresh is on its way is not undone by the
        /// refresh's older answer.
        @Test func aPushedPresenceIsNotUndoneByAnAnswerFetchedBeforeIt() async throws {
            let server = try await InProcessServer.start()
            let gated = GatedPresenceTransport()
            let alice = try makeClient(server.url, http: gated)
            let bob = try makeClient(server.url)
            try await signUp(alice, "alice")
            try await signUp(bob, "bob")
            let bobId = try #require(await bob.session.currentUser?.id)
            try await bob.contacts.accept(try await alice.contacts.sendRequest(to: bobId).id)

            gated.close()
            let refreshing = Task { try await alice.presence.refresh() }
            try await eventually("the answer (bob offline) waits at the gate") { gated.holdsAnAnswer }
            await alice.presence.receive(Presence(userId: bobId, status: .online))
            gated.open()
            #expect(try await refreshing.value.map(\.status) == [.offline], "the server answered before the frame")
            #expect(await alice.presence.presence(of: bobId)?.status == .online, "the newer frame stands")
            await server.stop()
        }

        @Test func preferencesReachTheUsersOtherDevicesAndTokensRegister() async throws {
            let (server, alice, _, _) = try await aliceAndBob()
            let laptop = try makeClient(server.url, device: "laptop")
            try await laptop.session.login("alice", password: "Passw0rd!")
            await laptop.connect()
            try await eventually { await laptop.connection.status == .connected }
            // A device that holds no preferences fetches them when it catches up.
            try await eventually("the laptop fetched the preferences") {
                (try? laptop.notifications.stored()) == .defaults
            }
            #expect(try await alice.notifications.fetch() == .defaults)

            let changed = try await alice.notifications.update(
                UpdateNotificationSettingsRequest(
                    timeZone: "America/New_York", quietHours: [QuietPeriod(start: "23:00", end: "06:30")],
                    preview: false))
            #expect(try alice.notifications.stored() == changed)
            try await eventually("the laptop hears the change live") { (try? laptop.notifications.stored()) == changed }

            let token = try await alice.notifications.registerPushToken(
                RegisterPushTokenRequest(platform: .apns, token: "00ff", appId: "chat.parley.app"))
            #expect(token.token == "00ff" && !token.sandbox)
            try await alice.notifications.removePushToken()
            let refused = await #expect(throws: ParleyError.self) {
                try await alice.notifications.update(UpdateNotificationSettingsRequest(timeZone: "Nowhere/Land"))
            }
            #expect(refused?.code == .invalidField)
            await laptop.disconnect()
            await server.stop()
        }
    }
}

/// An HTTP transport that, while closed, holds the answers of `GET /v1/presence` after they
/// arrived, until opened: an answer overtaken by what happened meanwhile.
final class GatedPresenceTransport: HTTPTransport {
    private let base = AsyncHTTPTransport(timeout: testHTTPTimeout)
    private let gate = Mutex<(closed: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    var holdsAnAnswer: Bool { gate.withLock { !$0.waiting.isEmpty } }
    func close() { gate.withLock { $0.closed = true } }
    func open() {
        let waiting = gate.withLock { gate -> [CheckedContinuation<Void, Never>] in
            defer { gate = (false, []) }
            return gate.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func perform(method: String, url: String, headers: [String: String], body: Data?) async throws
        -> (status: Int, body: Data)
    {
        let answer = try await base.perform(method: method, url: url, headers: headers, body: body)
        guard method == "GET", url.contains("/v1/presence") else { return answer }
        await withCheckedContinuation { continuation in
            let held = gate.withLock { gate -> Bool in
                guard gate.closed else { return false }
                gate.waiting.append(continuation)
                return true
            }
            if !held { continuation.resume() }
        }
        return answer
    }
}
