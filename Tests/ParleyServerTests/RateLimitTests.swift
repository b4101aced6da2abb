import Foundation
import HTTPTypes
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTesting
import Testing

/// Rate limits: a burst, then a steady rate, per address or per account, refused with
/// `rate_limited` and `Retry-After` (over the WebSocket, the error with `until`), nothing
/// changed by a refused request, and one bucket for every node of a cluster.
@Suite struct RateLimitTests {
    static let start: Int64 = 1_800_000_000_000

    static func limited(_ settings: String...) -> @Sendable (inout ServerConfiguration) -> Void {
        { configuration in
            for setting in settings {
                let applied = configuration.rateLimits.apply(setting)
                #expect(applied, "\(setting)")
            }
        }
    }

    static func message(_ text: String, to user: UserID) -> SendMessageRequest {
        SendMessageRequest(
            toUserId: user, clientMsgId: UUID().uuidString, kind: .text, content: ["text": .string(text)])
    }

    @Test func limitsParseAndPrintAsTheFlagTakesThem() throws {
        #expect(RateLimit(parsing: "50,10/s") == RateLimit(burst: 50, rate: 10))
        #expect(RateLimit(parsing: "5,10/h")?.description == "5,10/h")
        #expect(RateLimit(parsing: "3,2/min")?.rateInWords == "2 per minute")
        #expect(RateLimit(parsing: "1,1/d")?.description == "1,1/d")
        for bad in ["", "5", "0,1/s", "5,0/s", "5,1/week", "5,x/s", "-1,1/s", "5,1/s/s"] {
            #expect(RateLimit(parsing: bad) == nil, "\(bad)")
        }
        var limits = RateLimits.defaults
        let off = limits.apply("send=off")
        #expect(off && limits[.send] == nil)
        let upload = limits.apply("upload=2,1/min")
        #expect(upload && limits[.upload] == RateLimit(burst: 2, 1, per: 60))
        for bad in ["sends=1,1/s", "send", "send=1/s"] {
            let applied = limits.apply(bad)
            #expect(!applied, "\(bad)")
        }
        #expect(limits[.register] == RateLimits.defaults[.register], "a refused setting changes nothing")
    }

    @Test func registrationsAndLoginsAreLimitedPerAddressAndAccount() async throws {
        let clock = TestClock(Self.start)
        try await withServer(
            clock: clock.wallClock, configure: Self.limited("register=2,2/h", "login-account=2,2/min", "login=5,1/s")
        ) { api in
            _ = try await api.signUp("alice")
            _ = try await api.signUp("bob")
            let third = try await TwoFactorTests.post(
                api, "/v1/accounts", RegisterRequest(username: "carol", password: "Passw0rd!"))
            #expect(third.status == 429 && third.error?.code == .rateLimited)
            #expect(third.headers[.retryAfter] == "1800")
            #expect(third.error?.message.contains("accounts registered from your address") == true)
            #expect((Self.start + 1_799_000...Self.start + 1_800_000).contains(third.error?.until ?? 0))
            clock.advance(1_800_000)
            _ = try await api.signUp("carol")  // The refused request made nothing: her name is free.

            // Logins: two to alice's account, then refused even with the right password, while
            // bob still logs in.
            _ = try await api.logIn("alice")
            _ = try await api.logIn("alice")
            let refused = try await TwoFactorTests.post(
                api, "/v1/sessions", LoginRequest(login: "alice", password: "Passw0rd!"))
            #expect(refused.status == 429 && refused.error?.code == .rateLimited)
            #expect(refused.headers[.retryAfter] == "30")
            _ = try await api.logIn("bob")
            clock.advance(30_000)
            _ = try await api.logIn("alice")
        }
    }

    @Test func sendsHaveABurstThenASteadyRateOverHTTPAndTheSocket() async throws {
        let clock = TestClock(Self.start)
        try await withServer(clock: clock.wallClock, configure: Self.limited("send=3,1/s")) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            var conversation: ConversationID?
            for index in 1...3 {
                let sent: SendMessageResponse = try await api.call(
                    .post, "/v1/messages", Self.message("\(index)", to: bob.id), token: alice.token)
                conversation = sent.message.conversationId
            }
            let fourth = try await TwoFactorTests.post(
                api, "/v1/messages", Self.message("4", to: bob.id), token: alice.token)
            #expect(fourth.status == 429 && fourth.error?.code == .rateLimited && fourth.headers[.retryAfter] == "1")
            let socket = try await LiveSocket.connect(api.webSocketURL, token: alice.token)
            let frame = try await socket.request(.send, Self.message("5", to: bob.id))
            #expect(frame.type == "error")
            let error = try frame.payload(ParleyError.self)
            #expect(error.code == .rateLimited && error.until == Self.start + 1_000)
            let bobs: SendMessageResponse = try await api.call(
                .post, "/v1/messages", Self.message("bob's own", to: alice.id), token: bob.token)
            #expect(bobs.message.seq == 4, "each sender has a bucket; the refused sends took no seq")
            clock.advance(1_000)
            let later: SendMessageResponse = try await socket.call(.send, Self.message("6", to: bob.id))
            #expect(later.message.seq == 5 && later.message.conversationId == conversation)
            await socket.close()
        }
    }

    @Test func friendRequestsAndUploadsAreLimitedPerAccount() async throws {
        let clock = TestClock(Self.start)
        try await withServer(clock: clock.wallClock, configure: Self.limited("friend-request=1,1/h", "upload=1,1/min"))
        {
            api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            let _: FriendRequest = try await api.call(
                .post, "/v1/friend-requests", SendFriendRequest(userId: bob.id), token: alice.token)
            let second = try await TwoFactorTests.post(
                api, "/v1/friend-requests", SendFriendRequest(userId: carol.id), token: alice.token)
            #expect(
                second.status == 429 && second.error?.code == .rateLimited && second.headers[.retryAfter] == "3600",
                "\(second.headers)")
            let requests: FriendRequestList = try await api.call(.get, "/v1/friend-requests", token: carol.token)
            #expect(requests.incoming.isEmpty, "the refused request was not made")

            _ = try await api.upload(Array("first".utf8), as: alice, kind: .file, mimeType: "text/plain")
            let upload = try await TwoFactorTests.post(
                api, "/v1/uploads",
                StartUploadRequest(
                    sha256: String(repeating: "a", count: 64), size: 5, mimeType: "text/plain", name: "b.txt",
                    kind: .file), token: alice.token)
            #expect(upload.status == 429 && upload.error?.code == .rateLimited && upload.headers[.retryAfter] == "60")
        }
    }

    /// With PostgreSQL, two nodes draw on one bucket: what one node let through counts on the other.
    @Test(.enabled(if: TestBackend.postgresURL != nil, "needs PostgreSQL: set PARLEY_TEST_POSTGRES_URL"))
    func theLimitsHoldAcrossNodes() async throws {
        let shared = temporaryDirectory()
        let limited = Self.limited("register=2,1/h")
        let configure: @Sendable (inout ServerConfiguration) -> Void = { configuration in
            configuration.databaseURL = TestBackend.postgresURL
            configuration.databaseSchema = TestBackend.schema(for: shared)
            limited(&configuration)
        }
        try await withServer(dataDirectory: shared, configure: configure) { east in
            try await withServer(dataDirectory: shared, configure: configure) { west in
                _ = try await east.signUp("alice")
                _ = try await west.signUp("bob")
                for api in [east, west] {
                    let refused = try await TwoFactorTests.post(
                        api, "/v1/accounts", RegisterRequest(username: "carol", password: "Passw0rd!"))
                    #expect(refused.status == 429 && refused.error?.code == .rateLimited)
                }
            }
        }
    }
}
