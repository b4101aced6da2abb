import ParleyCore
import ParleyStore
import ParleyTesting
import Testing

/// The two-factor part of the storage contract: an enrolment is confirmed once, a step and a
/// recovery code are used once, and wrong codes lock after the limit.
extension StoreContractTests {
    @Test(arguments: StoreBackend.available)
    func twoFactorCodesWorkOnceAndWrongOnesLock(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let alice = try await makeUsers(store, "alice")[0]
        #expect(try await store.twoFactor(of: alice) == nil)
        #expect(try await store.beginTwoFactor(alice, secret: "AAAA", at: Self.now))
        #expect(try await store.beginTwoFactor(alice, secret: "BBBB", at: Self.now), "starting again replaces it")
        #expect(try await !store.disableTwoFactor(alice), "not on yet")
        #expect(try await store.twoFactor(of: alice)?.secret == "BBBB")

        #expect(try await store.enableTwoFactor(alice, step: 100, recoveryCodeHashes: ["r1", "r2"], at: Self.now))
        #expect(try await !store.enableTwoFactor(alice, step: 101, recoveryCodeHashes: [], at: Self.now), "once")
        #expect(try await !store.beginTwoFactor(alice, secret: "CCCC", at: Self.now), "on: no new secret")
        let on = try #require(try await store.twoFactor(of: alice))
        #expect(on.secret == "BBBB" && on.enabledAt == Self.now && on.lastStep == 100 && on.recoveryCodesLeft == 2)

        #expect(try await !store.useTwoFactorStep(alice, step: 100), "the confirming code was used")
        #expect(try await store.useTwoFactorStep(alice, step: 102))
        #expect(try await !store.useTwoFactorStep(alice, step: 101), "an earlier step is spent too")
        #expect(try await store.useRecoveryCode(alice, hash: "r1", at: Self.now))
        #expect(try await !store.useRecoveryCode(alice, hash: "r1", at: Self.now), "once")
        #expect(try await !store.useRecoveryCode(alice, hash: "nope", at: Self.now))
        #expect(try await store.twoFactor(of: alice)?.recoveryCodesLeft == 1)

        #expect(try await store.noteTwoFactorFailure(alice, limit: 3, lockedUntil: Self.now + 9) == nil)
        #expect(try await store.noteTwoFactorFailure(alice, limit: 3, lockedUntil: Self.now + 9) == nil)
        #expect(try await store.twoFactor(of: alice)?.failures == 2)
        #expect(try await store.noteTwoFactorFailure(alice, limit: 3, lockedUntil: Self.now + 9) == Self.now + 9)
        let locked = try #require(try await store.twoFactor(of: alice))
        #expect(locked.lockedUntil == Self.now + 9 && locked.failures == 0)
        _ = try await store.noteTwoFactorFailure(alice, limit: 3, lockedUntil: Self.now + 9)
        #expect(try await store.useTwoFactorStep(alice, step: 103))
        #expect(try await store.twoFactor(of: alice)?.failures == 0, "a right code clears the count")

        #expect(try await store.disableTwoFactor(alice))
        #expect(try await store.twoFactor(of: alice) == nil)
        #expect(try await !store.useRecoveryCode(alice, hash: "r2", at: Self.now), "its codes went with it")
    }
}

extension StoreContractTests {
    /// Changing the password revokes every other live session, keeps the one named, and
    /// tells the fan-out of each.
    @Test(arguments: StoreBackend.available)
    func aPasswordChangeRevokesEveryOtherSession(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let (alice, bob) = try await {
            let ids = try await makeUsers(store, "alice", "bob")
            return (ids[0], ids[1])
        }()
        func session(_ user: UserID, _ device: String) async throws -> SessionID {
            let tokens = SessionTokens(
                accessTokenHash: "a-\(device)", accessExpiresAt: Self.now + 1000, refreshTokenHash: "r-\(device)",
                refreshExpiresAt: Self.now + 2000)
            return try await store.createSession(
                NewSession(userId: user, device: device, ip: "1.2.3.4", tokens: tokens, createdAt: Self.now)
            ).id
        }
        let laptop = try await session(alice, "laptop")
        let phone = try await session(alice, "phone")
        let tablet = try await session(alice, "tablet")
        let bobs = try await session(bob, "bob")
        #expect(try await store.revokeSession(tablet, of: alice, at: Self.now))
        #expect(try await store.changePassword(of: alice, to: "new-hash", keeping: laptop, at: Self.now + 5) == 1)
        let sessions = try await store.sessions(of: alice)
        #expect(sessions.first { $0.id == phone }?.revokedAt == Self.now + 5)
        #expect(sessions.first { $0.id == laptop }?.revokedAt == nil)
        #expect(sessions.first { $0.id == tablet }?.revokedAt == Self.now, "revoked before: unchanged")
        #expect(try await store.sessions(of: bob).first { $0.id == bobs }?.revokedAt == nil, "other users untouched")
        #expect(try await store.user(id: alice)?.passwordHash == "new-hash")
        let unknown = await #expect(throws: ParleyError.self) {
            try await store.changePassword(of: UserID(999_999), to: "x", keeping: laptop, at: Self.now)
        }
        #expect(unknown?.code == .userNotFound)
    }
}

extension StoreContractTests {
    /// A user's security log reads back newest first, as many as asked, and only theirs.
    @Test(arguments: StoreBackend.available)
    func securityEventsReadBackNewestFirstPerUser(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let ids = try await makeUsers(store, "alice", "bob")
        let events = [
            SecurityEvent(kind: .login, at: Self.now, device: "laptop", ip: "10.0.0.1"),
            SecurityEvent(kind: .twoFactorEnabled, at: Self.now + 1, ip: "10.0.0.1"),
            SecurityEvent(kind: "a_kind_from_a_newer_server", at: Self.now + 2),
        ]
        for event in events { try await store.noteSecurityEvent(event, for: ids[0]) }
        try await store.noteSecurityEvent(SecurityEvent(kind: .login, at: Self.now, device: "bob's"), for: ids[1])
        #expect(try await store.securityEvents(of: ids[0], limit: 10) == events.reversed())
        #expect(try await store.securityEvents(of: ids[0], limit: 2) == Array(events.reversed().prefix(2)))
        #expect(try await store.securityEvents(of: ids[1], limit: 10).map(\.device) == ["bob's"])
    }
}
