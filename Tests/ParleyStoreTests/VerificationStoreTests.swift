import ParleyCore
import ParleyStore
import ParleyTesting
import Testing

/// The verification part of the storage contract: one pending code per user and purpose,
/// a resend barrier, wrong tries ending a code, and a code used once in the transaction that
/// applies it; and token buckets shared by whoever uses the store.
extension StoreContractTests {
    func code(_ user: UserID, _ purpose: VerificationPurpose, _ destination: String, _ hash: String, at sentAt: Int64)
        -> VerificationCodeRecord
    {
        VerificationCodeRecord(
            userId: user, purpose: purpose, destination: destination, codeHash: hash, sentAt: sentAt,
            expiresAt: sentAt + 600_000)
    }

    @Test(arguments: StoreBackend.available)
    func verificationCodesWorkOnceForTheirPurposeAndAddress(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let ids = try await makeUsers(store, "alice", "bob")
        let (alice, bob) = (ids[0], ids[1])
        let now = Self.now
        #expect(
            try await store.saveVerificationCode(
                code(alice, .changeEmail, "a@x.io", "h1", at: now), unlessSentAfter: now - 60_000) == nil)
        #expect(
            try await store.saveVerificationCode(
                code(alice, .changeEmail, "a@x.io", "h2", at: now + 1), unlessSentAfter: now + 1 - 60_000)
                == now, "within the resend interval: the first stays")
        #expect(try await store.verificationCode(of: alice, purpose: .changeEmail)?.codeHash == "h1")
        #expect(try await store.useVerificationCode(of: alice, purpose: .changeEmail, codeHash: "h2", at: now) == nil)
        #expect(try await store.useVerificationCode(of: alice, purpose: .verifyEmail, codeHash: "h1", at: now) == nil)
        #expect(
            try await store.useVerificationCode(of: alice, purpose: .changeEmail, codeHash: "h1", at: now + 600_000)
                == nil, "expired")

        // A later code replaces the first; wrong tries end it.
        #expect(
            try await store.saveVerificationCode(
                code(alice, .changeEmail, "a@x.io", "h3", at: now + 60_000), unlessSentAfter: now) == nil)
        #expect(try await store.noteWrongVerificationCode(of: alice, purpose: .changeEmail, maxAttempts: 2))
        #expect(try await store.verificationCode(of: alice, purpose: .changeEmail)?.attempts == 1)
        #expect(try await !store.noteWrongVerificationCode(of: alice, purpose: .changeEmail, maxAttempts: 2))
        #expect(try await store.verificationCode(of: alice, purpose: .changeEmail) == nil)

        // Used: the address changes, verified, once.
        #expect(
            try await store.saveVerificationCode(
                code(alice, .changeEmail, "a@x.io", "h4", at: now + 120_000), unlessSentAfter: now) == nil)
        let changed = try #require(
            try await store.useVerificationCode(of: alice, purpose: .changeEmail, codeHash: "h4", at: now + 120_001))
        #expect(
            changed.email == "a@x.io" && changed.emailVerifiedAt == now + 120_001
                && changed.account.emailVerified == true)
        #expect(
            try await store.useVerificationCode(of: alice, purpose: .changeEmail, codeHash: "h4", at: now + 120_002)
                == nil)

        // Bob cannot take Alice's address: the error, and his code stays for another try.
        #expect(
            try await store.saveVerificationCode(
                code(bob, .changeEmail, "a@x.io", "b1", at: now), unlessSentAfter: now - 60_000) == nil)
        await #expect(throws: ParleyError.emailTaken()) {
            _ = try await store.useVerificationCode(of: bob, purpose: .changeEmail, codeHash: "b1", at: now + 1)
        }
        #expect(try await store.verificationCode(of: bob, purpose: .changeEmail)?.codeHash == "b1")
        try await store.dropVerificationCode(of: bob, purpose: .changeEmail, codeHash: "other")
        #expect(try await store.verificationCode(of: bob, purpose: .changeEmail) != nil, "only its own hash drops it")
        try await store.dropVerificationCode(of: bob, purpose: .changeEmail, codeHash: "b1")
        #expect(try await store.verificationCode(of: bob, purpose: .changeEmail) == nil)

        // A phone verified where it still is; not once it changed.
        #expect(
            try await store.saveVerificationCode(
                code(bob, .changePhone, "+8613800000001", "p1", at: now), unlessSentAfter: now - 60_000) == nil)
        #expect(
            try await store.useVerificationCode(of: bob, purpose: .changePhone, codeHash: "p1", at: now)?.phone
                == "+8613800000001")
        #expect(
            try await store.saveVerificationCode(
                code(bob, .verifyPhone, "+8613800000000", "v1", at: now), unlessSentAfter: now - 60_000) == nil)
        #expect(
            try await store.useVerificationCode(of: bob, purpose: .verifyPhone, codeHash: "v1", at: now) == nil,
            "not his phone")
    }

    @Test(arguments: StoreBackend.available)
    func aResetCodeSetsThePasswordAndEndsEverySession(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = try await makeUsers(store, "alice")[0]
        for device in ["phone", "laptop"] {
            _ = try await store.createSession(
                NewSession(
                    userId: alice, device: device, ip: "10.0.0.1",
                    tokens: SessionTokens(
                        accessTokenHash: "a-\(device)", accessExpiresAt: Self.now + 1_000,
                        refreshTokenHash: "r-\(device)",
                        refreshExpiresAt: Self.now + 9_000),
                    createdAt: Self.now))
        }
        #expect(
            try await store.saveVerificationCode(
                code(alice, .resetPassword, "a@x.io", "r1", at: Self.now), unlessSentAfter: 0) == nil)
        #expect(try await store.resetPassword(of: alice, codeHash: "wrong", to: "new", at: Self.now) == nil)
        #expect(try await store.user(id: alice)?.passwordHash == "h")
        #expect(try await store.resetPassword(of: alice, codeHash: "r1", to: "new", at: Self.now) == 2)
        #expect(try await store.user(id: alice)?.passwordHash == "new")
        #expect(try await store.sessions(of: alice).allSatisfy { $0.revokedAt == Self.now })
        #expect(try await store.resetPassword(of: alice, codeHash: "r1", to: "newer", at: Self.now) == nil, "once")
    }

    @Test(arguments: StoreBackend.available)
    func tokenBucketsAllowABurstThenASteadyRate(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let now = Self.now
        for _ in 0..<3 {
            #expect(try await store.takeToken("send:1", burst: 3, perMillisecond: 0.001, at: now) == nil)
        }
        #expect(try await store.takeToken("send:1", burst: 3, perMillisecond: 0.001, at: now) == 1_000)
        #expect(try await store.takeToken("send:2", burst: 3, perMillisecond: 0.001, at: now) == nil, "per key")
        #expect(try await store.takeToken("send:1", burst: 3, perMillisecond: 0.001, at: now + 400) == 600)
        #expect(try await store.takeToken("send:1", burst: 3, perMillisecond: 0.001, at: now + 1_000) == nil)
        #expect(try await store.takeToken("send:1", burst: 3, perMillisecond: 0.001, at: now + 1_000) == 1_000)
        #expect(
            try await store.takeToken("send:1", burst: 3, perMillisecond: 0.001, at: now + 500) != nil,
            "a clock behind does not refill")
        // Long idle: full again, but never more than the burst.
        for _ in 0..<3 {
            #expect(try await store.takeToken("send:1", burst: 3, perMillisecond: 0.001, at: now + 3_600_000) == nil)
        }
        #expect(try await store.takeToken("send:1", burst: 3, perMillisecond: 0.001, at: now + 3_600_000) != nil)
    }
}
