import Crypto
import Foundation
import JWTKit
import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyServer

/// Pushes to devices with no connection, through the APNs pusher against a local HTTP/2
/// server that checks each request as Apple documents it.
@Suite(.serialized) struct PushTests {
    struct ProviderClaims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Runs a server that pushes to `apns`, with presence written every 50 ms.
    func withPushingServer(
        _ apns: APNsTestServer, _ body: @Sendable (TestAPI) async throws -> Void
    ) async throws {
        try await withServer(configure: {
            $0.apns = apns.configuration()
            $0.presenceInterval = .milliseconds(50)
        }) { api in try await body(api) }
    }

    func register(_ token: String, sandbox: Bool = false, for user: TestUser, on api: TestAPI) async throws {
        let answer: PushToken = try await api.call(
            .put, "/v1/me/push-token",
            RegisterPushTokenRequest(platform: .apns, token: token, appId: "chat.parley.app", sandbox: sandbox),
            token: user.token)
        #expect(answer.token == token && answer.appId == "chat.parley.app" && answer.sandbox == sandbox)
    }

    @Test func anOfflineRecipientGetsExactlyTheRequestAppleDocuments() async throws {
        let apns = try await APNsTestServer.start()
        try await withPushingServer(apns) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            try await register("0a1b2c", for: bob, on: api)
            let sent: SendMessageResponse = try await api.call(
                .post, "/v1/messages",
                SendMessageRequest(toUserId: bob.id, clientMsgId: "m1", kind: .text, content: ["text": "hello bob"]),
                token: alice.token)

            let request = try #require(try await apns.waitForRequests(1).first)
            #expect(request.token == "0a1b2c")
            #expect(request.scheme == "https", "HTTP/2 carries :scheme; HTTP/1.1 has none")
            #expect(request.authority == "localhost:\(apns.port)", "a production token goes to the production host")
            #expect(request.headers["apns-topic"] == "chat.parley.app")
            #expect(request.headers["apns-push-type"] == "alert")
            #expect(request.headers["apns-priority"] == "10")
            let expiration = try #require(request.headers["apns-expiration"].flatMap { Int64($0) })
            #expect(expiration > Int64(Date().timeIntervalSince1970))
            let bearer = try #require(request.headers["authorization"])
            #expect(bearer.hasPrefix("bearer "))
            let keys = await JWTKeyCollection().add(ecdsa: try ES256PublicKey(backing: apns.signingKey.publicKey))
            let claims = try await keys.verify(String(bearer.dropFirst("bearer ".count)), as: ProviderClaims.self)
            #expect(claims.iss.value == "TEAM123456")
            #expect(abs(claims.iat.value.timeIntervalSinceNow) < 120)
            let header = try #require(bearer.dropFirst("bearer ".count).split(separator: ".").first)
            let headerJSON = try #require(Data(base64Encoded: Self.padded(String(header))))
            let fields = try JSONSerialization.jsonObject(with: headerJSON) as? [String: String]
            #expect(fields?["alg"] == "ES256" && fields?["kid"] == "KEY1234567")

            let body = try JSONSerialization.jsonObject(with: request.body) as? [String: Any]
            let aps = try #require(body?["aps"] as? [String: Any])
            let alert = aps["alert"] as? [String: String]
            #expect(alert == ["title": "alice", "body": "hello bob"])
            #expect(aps["badge"] as? Int == 1)
            #expect(aps["thread-id"] as? String == "conversation-\(sent.message.conversationId.rawValue)")
            #expect(body?["kind"] as? String == "direct")
            #expect((body?["conversationId"] as? Int).map(Int64.init) == sent.message.conversationId.rawValue)
            #expect(body?["seq"] as? Int == 1)
        }
        await apns.stop()
    }

    @Test func aConnectedDeviceIsNotPushedAndAGoneTokenIsForgotten() async throws {
        let apns = try await APNsTestServer.start()
        try await withPushingServer(apns) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            try await register("beef01", sandbox: true, for: bob, on: api)
            let direct = try await api.sendText(to: bob, "one", as: alice).message.conversationId
            let first = try #require(try await apns.waitForRequests(1).first)
            #expect(first.authority == "127.0.0.1:\(apns.port)", "a sandbox token goes to the sandbox host")

            // Bob connects: once presence is written, nothing is pushed.
            let socket = try await LiveSocket.connect(api.webSocketURL, token: bob.token)
            try await api.waitUntil(bob, is: .online)
            _ = try await api.sendText("two", to: direct, as: alice)
            _ = try await socket.waitFor { $0.type == "message" && $0.text.contains("two") }
            await socket.close()
            try await api.waitUntil(bob, is: .offline)

            // APNs says the token is unregistered: it is forgotten, so the next message
            // makes no request.
            apns.answer("beef01", status: 410, reason: "Unregistered")
            _ = try await api.sendText("three", to: direct, as: alice)
            _ = try await apns.waitForRequests(2)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await api.sendText("four", to: direct, as: alice)
            try await Task.sleep(for: .milliseconds(500))
            #expect(apns.requests.count == 2, "only 'one' and 'three' were pushed")
        }
        await apns.stop()
    }

    /// One provider token serves every push until it expires; APNs refusing it as expired
    /// makes one new token, used from then on.
    @Test func theProviderTokenIsSharedAndRenewedOnceWhenRefused() async throws {
        let apns = try await APNsTestServer.start()
        try await withPushingServer(apns) { api in
            let alice = try await api.signUp("alice")
            var members: [TestUser] = []
            for (index, name) in ["bob", "cyd", "dan", "eve"].enumerated() {
                let user = try await api.signUp(name)
                try await register("aa0\(index)", for: user, on: api)
                members.append(user)
            }
            let group = try await api.createGroup("Team", by: alice, with: members)
            let invitations = try await apns.waitForRequests(4)
            #expect(Set(invitations.map { $0.headers["authorization"] }).count == 1, "four pushes at once, one token")
            let first = invitations[0].headers["authorization"]

            apns.answer("aa00", status: 403, reason: "ExpiredProviderToken", times: 1)
            _ = try await api.sendText("hello", to: group, as: alice)
            let retried = try await apns.waitForRequests(9)
            let toBob = retried.dropFirst(4).filter { $0.token == "aa00" }
            #expect(toBob.count == 2, "refused, then sent again with a new token")
            #expect(toBob.first?.headers["authorization"] == first)
            let renewed = try #require(toBob.last?.headers["authorization"])
            #expect(renewed != first)
            _ = try await api.sendText("again", to: group, as: alice)
            let later = try await apns.waitForRequests(13).dropFirst(9)
            #expect(later.allSatisfy { $0.headers["authorization"] == renewed }, "the new token is kept")
        }
        await apns.stop()
    }

    /// A token registered on one node is pushed to by another once that node refreshes its
    /// token holders (within ``PushDispatcher/holderRefresh``).
    @Test(.enabled(if: TestBackend.postgresURL != nil, "needs PostgreSQL: set PARLEY_TEST_POSTGRES_URL"))
    func aTokenRegisteredOnOneNodeIsPushedToByAnother() async throws {
        let apns = try await APNsTestServer.start()
        let shared = temporaryDirectory()  // The same PostgreSQL schema for both nodes.
        try await withServer(dataDirectory: shared, configure: { $0.apns = apns.configuration() }) { east in
            try await withServer(dataDirectory: shared, configure: { $0.apns = apns.configuration() }) { west in
                let alice = try await west.signUp("alice")
                let bob = try await east.signUp("bob")
                try await register("be11", for: bob, on: east)
                try await Task.sleep(for: PushDispatcher.holderRefresh + .seconds(2))
                _ = try await west.sendText(to: bob, "from the other node", as: alice)
                let push = try #require(try await apns.waitForRequests(1).first)
                #expect(
                    push.token == "be11" && String(decoding: push.body, as: UTF8.self).contains("from the other node"))
            }
        }
        await apns.stop()
    }

    /// A busy service (503) is tried again; a token it calls bad (400 BadDeviceToken) is
    /// forgotten, as a 410 is.
    @Test func aBusyServiceIsRetriedAndABadTokenForgotten() async throws {
        let apns = try await APNsTestServer.start()
        apns.answer("b0051", status: 503, reason: "ServiceUnavailable", times: 2)
        apns.answer("bad001", status: 400, reason: "BadDeviceToken")
        try await withPushingServer(apns) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            try await register("b0051", for: bob, on: api)
            try await register("bad001", for: cyd, on: api)
            _ = try await api.sendText(to: bob, "busy?", as: alice)
            let tries = try await apns.waitForRequests(3)
            #expect(tries.map(\.token) == ["b0051", "b0051", "b0051"], "two 503s, then delivered")
            _ = try await api.sendText(to: cyd, "bad token", as: alice)
            _ = try await apns.waitForRequests(4)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await api.sendText(to: cyd, "again", as: alice)
            try await Task.sleep(for: .milliseconds(500))
            #expect(apns.requests.filter { $0.token == "bad001" }.count == 1, "the bad token was forgotten")
        }
        await apns.stop()
    }

    @Test func aStuckPushServiceNeverHoldsASend() async throws {
        let apns = try await APNsTestServer.start()
        apns.hold("cafe01")
        try await withPushingServer(apns) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            try await register("cafe01", for: bob, on: api)
            let direct = try await api.sendText(to: bob, "first", as: alice).message.conversationId
            _ = try await apns.waitForRequests(1)
            // The push is stuck in the service; sends still commit and answer.
            for index in 0..<5 { _ = try await api.sendText("more \(index)", to: direct, as: alice) }
            #expect(try await api.fullHistory(of: direct, as: bob).count == 6)
            apns.release("cafe01")
            _ = try await apns.waitForRequests(6)
        }
        await apns.stop()
    }

    @Test func preferencesMuteAndQuietHoursDecideWhatIsPushed() async throws {
        let apns = try await APNsTestServer.start()
        try await withPushingServer(apns) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let cyd = try await api.signUp("cyd")
            try await register("d00d01", for: bob, on: api)
            let group = try await api.createGroup("Team", by: alice, with: [bob, cyd])
            // Being added to the group is an invitation push.
            let invitation = try #require(try await apns.waitForRequests(1).last)
            let invited = try JSONSerialization.jsonObject(with: invitation.body) as? [String: Any]
            #expect(invited?["kind"] as? String == "group_invitation")

            // No previews: a notification says only that something came.
            let _: NotificationSettings = try await api.call(
                .patch, "/v1/me/notifications", UpdateNotificationSettingsRequest(preview: false), token: bob.token)
            _ = try await api.sendText("secret plans", to: group, as: alice)
            let hidden = try #require(try await apns.waitForRequests(2).last)
            let hiddenBody = String(decoding: hidden.body, as: UTF8.self)
            #expect(
                !hiddenBody.contains("secret") && !hiddenBody.contains("alice") && hiddenBody.contains("New message"))

            // Muted: only a mention pushes.
            let _: ConversationSummary = try await api.call(
                .patch, "/v1/conversations/\(group)/settings", UpdateSettingsRequest(muted: true), token: bob.token)
            _ = try await api.sendText("not for bob", to: group, as: alice)
            try await send(mentioning: bob, "@bob look", in: group, by: alice, on: api)
            let mention = try #require(try await apns.waitForRequests(3).last)
            #expect(String(decoding: mention.body, as: UTF8.self).contains(#""kind":"mention""#))

            // Quiet all day (two periods cover the clock): nothing. Then mentions switched off in
            // a muted group: nothing either.
            let _: NotificationSettings = try await api.call(
                .patch, "/v1/me/notifications",
                UpdateNotificationSettingsRequest(
                    timeZone: "Asia/Tokyo",
                    quietHours: [QuietPeriod(start: "00:00", end: "12:00"), QuietPeriod(start: "12:00", end: "00:00")]),
                token: bob.token)
            try await send(mentioning: bob, "@bob again", in: group, by: alice, on: api)
            let _: NotificationSettings = try await api.call(
                .patch, "/v1/me/notifications", UpdateNotificationSettingsRequest(quietHours: [], mentions: false),
                token: bob.token)
            try await send(mentioning: bob, "@bob and again", in: group, by: alice, on: api)
            // A friend request is its own kind, still on.
            let _: FriendRequest = try await api.request(cyd, befriends: bob, "hi")
            let request = try #require(try await apns.waitForRequests(4).last)
            #expect(String(decoding: request.body, as: UTF8.self).contains(#""kind":"friend_request""#))
            try await Task.sleep(for: .milliseconds(300))
            #expect(apns.requests.count == 4)
        }
        await apns.stop()
    }

    /// Notification preferences: read, changed field by field, checked precisely, and the
    /// change reaches the user's other devices as `notifications.updated`.
    @Test func notificationSettingsAreCheckedAndSyncedToOtherDevices() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let laptop = try await api.logIn("alice", device: "laptop")
            let before: SyncResponse = try await api.call(.get, "/v1/sync", token: laptop.token)
            let initial: NotificationSettings = try await api.call(.get, "/v1/me/notifications", token: alice.token)
            #expect(initial == .defaults)
            let changed: NotificationSettings = try await api.call(
                .patch, "/v1/me/notifications",
                UpdateNotificationSettingsRequest(
                    timeZone: "Europe/Berlin", quietHours: [QuietPeriod(start: "22:00", end: "07:00", days: [6, 7])],
                    direct: false),
                token: alice.token)
            #expect(changed.timeZone == "Europe/Berlin" && !changed.direct && changed.group)
            let events = try await api.events(of: laptop, since: before.cursor)
            #expect(events.map(\.body) == [.notificationsUpdated(NotificationsUpdated(settings: changed))])

            let bad: [(String, ErrorCode, String)] = [
                ("{}", .missingField, "Give at least one"),
                (#"{"timeZone":"Mars/Olympus"}"#, .invalidField, "timeZone"),
                (#"{"quietHours":[{"start":"25:00","end":"07:00"}]}"#, .invalidField, "HH:MM"),
                (#"{"quietHours":[{"start":"07:00","end":"07:00"}]}"#, .invalidField, "differ"),
                (#"{"quietHours":[{"start":"22:00","end":"07:00","days":[0]}]}"#, .invalidField, "ISO weekdays"),
                (#"{"direct":"no"}"#, .invalidField, "direct"),
                (#"{"sound":true}"#, .unknownField, "sound"),
            ]
            for (body, code, words) in bad {
                let (status, text, _) = try await api.raw(
                    .patch, "/v1/me/notifications", body: body, token: alice.token)
                let error = try decodeJSON(ErrorBody.self, text).error
                #expect(status == 400 && error.code == code && error.message.contains(words), "\(body)")
            }
            let tooMany = try JSONText.encode(
                UpdateNotificationSettingsRequest(
                    quietHours: Array(repeating: QuietPeriod(start: "01:00", end: "02:00"), count: 11)))
            let (status, _, _) = try await api.raw(.patch, "/v1/me/notifications", body: tooMany, token: alice.token)
            #expect(status == 400)
            let after: NotificationSettings = try await api.call(.get, "/v1/me/notifications", token: alice.token)
            #expect(after == changed, "bad input changed nothing")

            for body in [
                #"{"platform":"fcm","token":"ab","appId":"a.b"}"#, #"{"platform":"apns","token":"xyz!","appId":"a.b"}"#,
                #"{"platform":"apns","token":"ab","appId":"a b"}"#, #"{"platform":"apns","appId":"a.b"}"#,
            ] {
                let (status, text, _) = try await api.raw(.put, "/v1/me/push-token", body: body, token: alice.token)
                #expect(status == 400, "\(body): \(text)")
            }
            let (removed, _, _) = try await api.raw(.delete, "/v1/me/push-token", token: alice.token)
            #expect(removed == 204)
            let (unauthenticated, _, _) = try await api.raw(.get, "/v1/me/notifications")
            #expect(unauthenticated == 401)
        }
    }

    /// `user` mentions `mentioned` in `group`.
    func send(
        mentioning mentioned: TestUser, _ text: String, in group: ConversationID, by user: TestUser, on api: TestAPI
    ) async throws {
        let _: SendMessageResponse = try await api.call(
            .post, "/v1/messages",
            SendMessageRequest(
                conversationId: group, clientMsgId: UUID().uuidString, kind: .text,
                content: ["text": .string(text), "mentions": [.number(.integer(mentioned.id.rawValue))]]),
            token: user.token)
    }

    static func padded(_ base64URL: String) -> String {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return text
    }
}

extension TestAPI {
    /// A direct text from `user` to `other`, opening their conversation if need be.
    func sendText(to other: TestUser, _ text: String, as user: TestUser) async throws -> SendMessageResponse {
        try await call(
            .post, "/v1/messages",
            SendMessageRequest(
                toUserId: other.id, clientMsgId: UUID().uuidString, kind: .text, content: ["text": .string(text)]),
            token: user.token)
    }
}
