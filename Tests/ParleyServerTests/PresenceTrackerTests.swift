import Foundation
import Logging
import ParleyCore
import ParleyStore
import ParleyStoreSQLite
import ParleyTesting
import Synchronization
import Testing

@testable import ParleyServer

/// A node's presence tracker on its own: what it writes and tells when the fan-out fails,
/// and after its node was swept.
@Suite struct PresenceTrackerTests {
    /// A fan-out that fails the first `failures` signals and records the others.
    final class FlakyFanOut: FanOut {
        private let state: Mutex<(failures: Int, sent: [Signal])>
        init(failures: Int) { state = Mutex((failures, [])) }
        var sent: [Signal] { state.withLock { $0.sent } }
        func subscribe(_ subscriber: @escaping @Sendable (FanOutItem) -> Void) {}
        func ready() async throws {}
        func send(_ signal: Signal) async throws {
            try state.withLock { state in
                if state.failures > 0 {
                    state.failures -= 1
                    throw ParleyError(.unavailable, "The fan-out is down.")
                }
                state.sent.append(signal)
            }
        }
    }

    /// Alice and her friend Bob in a fresh store, and a tracker whose signals go to `fanOut`.
    func setUp(_ fanOut: FlakyFanOut) async throws -> (SQLiteStore, PresenceTracker, alice: UserID, bob: UserID) {
        let store = try SQLiteStore(directory: temporaryDirectory())
        var ids: [UserID] = []
        for name in ["alice", "bob"] {
            ids.append(
                try await store.createUser(
                    NewUser(username: name, email: nil, phone: nil, passwordHash: "h", nickname: name, createdAt: 0)
                ).id)
        }
        _ = try await store.updatePrivacy(userId: ids[0], UpdatePrivacyRequest(addMe: .anyone), at: 0)
        _ = try await store.requestFriend(from: ids[1], to: ids[0], message: "", at: 0, expiresAt: 1_000)
        let tracker = PresenceTracker(
            store: store, presence: PresenceService(store: store, fanOut: fanOut, logger: Logger(label: "test")),
            clock: .system, configuration: ServerConfiguration(), logger: Logger(label: "test"))
        return (store, tracker, ids[0], ids[1])
    }

    func told(_ fanOut: FlakyFanOut) throws -> [Presence] {
        try fanOut.sent.map { try JSONText.decode(Presence.self, from: JSONText.encode($0.payload)) }
    }

    @Test func aTurnTheFanOutCouldNotCarryIsToldWithTheNextWrite() async throws {
        let fanOut = FlakyFanOut(failures: 1)
        let (store, tracker, alice, bob) = try await setUp(fanOut)
        tracker.connected(bob)
        await tracker.flush()
        #expect(fanOut.sent.isEmpty, "the fan-out failed")
        #expect(try await store.presence(of: [bob], for: alice).map(\.status) == [.online], "but it is recorded")
        await tracker.flush()
        #expect(try told(fanOut) == [Presence(userId: bob, status: .online)])
        #expect(fanOut.sent.map(\.recipients) == [[alice]])
        try store.close()
    }

    @Test func aNodeThatWasSweptWritesItsUsersAgain() async throws {
        let fanOut = FlakyFanOut(failures: 0)
        let (store, tracker, alice, bob) = try await setUp(fanOut)
        await tracker.heartbeat()
        tracker.connected(bob)
        await tracker.flush()
        // Another node swept this one (its clock far ahead): bob went offline.
        let swept = try await store.sweepSilentNodes(before: Int64(Date().timeIntervalSince1970 * 1000) + 60_000)
        #expect(swept.map(\.userId) == [bob])
        #expect(try await store.presence(of: [bob], for: alice).map(\.status) == [.offline])
        // Its next heartbeat finds it unregistered, so its next write brings bob back.
        await tracker.heartbeat()
        await tracker.flush()
        #expect(try await store.presence(of: [bob], for: alice).map(\.status) == [.online])
        try store.close()
    }
}
