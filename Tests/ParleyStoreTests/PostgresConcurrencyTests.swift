import Foundation
import ParleyCore
import ParleyStore
import ParleyTesting
import PostgresNIO
import Synchronization
import Testing

@testable import ParleyStorePostgres

/// Sends into different conversations run side by side on PostgreSQL, and a sync still sees
/// every change exactly once. A second session holds row locks to stop a send half-way.
@Suite(.enabled(if: TestBackend.postgresURL != nil, "needs PostgreSQL: set PARLEY_TEST_POSTGRES_URL"))
struct PostgresConcurrencyTests {
    let contract = StoreContractTests()

    /// A transaction of its own holding `lockSQL`'s row locks until `release()`.
    final class RowLockHolder: Sendable {
        let pid: Int64
        private let released: AsyncStream<Void>.Continuation
        private let task: Task<Void, any Error>

        init(_ store: PostgresStore, _ lockSQL: String) async throws {
            let (releases, released) = AsyncStream<Void>.makeStream()
            let (pids, pid) = AsyncStream<Int64>.makeStream()
            self.released = released
            task = Task {
                try await store.client.withTransaction(logger: store.logger) { connection in
                    try await connection.rows(lockSQL, logger: store.logger)
                    pid.yield(try await connection.scalar(Int64.self, "SELECT pg_backend_pid()", logger: store.logger)!)
                    for await _ in releases { break }
                }
            }
            var first: Int64?
            for await value in pids {
                first = value
                break
            }
            self.pid = first!
        }

        func release() async throws {
            released.yield()
            try await task.value
        }
    }

    /// Waits until a session waits behind `depth` links of locks starting at `pid`.
    func waitForBlocked(_ store: PostgresStore, behind pid: Int64, depth: Int) async throws {
        let chain =
            depth == 1
            ? "SELECT count(*) FROM pg_stat_activity a WHERE $1 = ANY(pg_blocking_pids(a.pid))"
            : """
            SELECT count(*) FROM pg_stat_activity a WHERE EXISTS (
                SELECT 1 FROM pg_stat_activity s
                WHERE $1 = ANY(pg_blocking_pids(s.pid)) AND s.pid = ANY(pg_blocking_pids(a.pid)))
            """
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await store.client.withConnection({ connection in
                try await connection.scalar(Int64.self, chain, [.int(pid)], logger: store.logger)!
            }) > 0 {
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CancellationError()  // nothing waited behind it
    }

    /// Whether `task` ends within `limit`, without waiting for it beyond (a write stuck
    /// behind a held lock must not hang the test).
    func ends<T: Sendable>(_ task: Task<T, any Error>, within limit: Duration) async -> Bool {
        let ended = Atomic(false)
        Task {
            _ = try? await task.value
            ended.store(true, ordering: .relaxed)
        }
        let deadline = ContinuousClock.now + limit
        while !ended.load(ordering: .relaxed), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return ended.load(ordering: .relaxed)
    }

    @Test func sendsIntoDifferentConversationsDoNotWaitForEachOther() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob", "carol")
        let first = try await store.createGroup(name: "one", ownerId: users[0], memberIds: users, at: 1).id
        let second = try await store.createGroup(name: "two", ownerId: users[0], memberIds: users, at: 1).id
        // The first conversation's row is held, so a send into it stops inside its write.
        let holder = try await RowLockHolder(store, "SELECT 1 FROM conversations WHERE id = \(first) FOR UPDATE")
        let stopped = Task {
            try await store.appendMessage(
                try contract.text("stopped", to: .conversation(first), from: users[1], id: "s1"))
        }
        try await waitForBlocked(store, behind: holder.pid, depth: 1)
        let passing = Task {
            try await store.appendMessage(
                try contract.text("passes", to: .conversation(second), from: users[2], id: "s2"))
        }
        let wentThrough = await ends(passing, within: .seconds(60))
        #expect(wentThrough, "a send into another conversation went through while one waited")
        try await holder.release()
        _ = try await passing.value
        let stoppedResult = try await stopped.value
        #expect(stoppedResult.message.clientMsgId == "s1" && !stoppedResult.duplicate)
        try await store.close()
    }

    /// A sync that begins while a send has drawn its version but not committed waits for it:
    /// its cursor must not pass a change it did not return.
    @Test func aSyncWaitsForTheSendsRunningWhenItBegan() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob", "carol")
        let first = try await store.createGroup(name: "one", ownerId: users[0], memberIds: users, at: 1).id
        let second = try await store.createGroup(name: "two", ownerId: users[0], memberIds: users, at: 1).id
        let start = try await store.sync(userId: users[0], since: nil, limit: 50).cursor
        // Bob's membership row is held: his send updates the conversation (drawing its
        // version), stores the message, then waits to move his read mark.
        let holder = try await RowLockHolder(
            store, "SELECT 1 FROM members WHERE conversation_id = \(first) AND user_id = \(users[1]) FOR UPDATE")
        let stopped = Task {
            try await store.appendMessage(try contract.text("late", to: .conversation(first), from: users[1], id: "l1"))
        }
        try await waitForBlocked(store, behind: holder.pid, depth: 1)
        let sending = Task {
            try await store.appendMessage(
                try contract.text("early", to: .conversation(second), from: users[2], id: "e1"))
        }
        guard await ends(sending, within: .seconds(60)) else {
            try await holder.release()
            Issue.record("a send into another conversation waited for the stopped one")
            return
        }
        let early = try await sending.value.message.seq
        let syncing = Task { try await store.sync(userId: users[0], since: start, limit: 50) }
        // Waits for the sync to queue behind the stopped send, as far as that can be seen.
        try? await waitForBlocked(store, behind: holder.pid, depth: 2)
        try await holder.release()
        let late = try await stopped.value.message.seq
        var seen = try await syncing.value
        var lastMessages: [ConversationID: Int64] = [:]
        while true {
            for summary in seen.conversations { lastMessages[summary.id] = summary.lastMessage?.seq ?? 0 }
            guard seen.hasMore else { break }
            seen = try await store.sync(userId: users[0], since: seen.cursor, limit: 50)
        }
        let after = try await store.sync(userId: users[0], since: seen.cursor, limit: 50)
        for summary in after.conversations { lastMessages[summary.id] = summary.lastMessage?.seq ?? 0 }
        #expect(lastMessages == [first: late, second: early], "both sends reached the syncing user")
        try await store.close()
    }

    /// The same send on two nodes at once: both find no earlier copy and queue on the
    /// conversation's row; the second to insert collides on its client id, runs again and
    /// answers as a duplicate of the first. Nothing is stored twice and the seqs stay dense.
    @Test func theSameSendTwiceAtOnceIsStoredOnceAndAnsweredAsADuplicate() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob")
        let group = try await store.createGroup(name: "g", ownerId: users[0], memberIds: users, at: 1).id
        let before = try await store.sync(userId: users[0], since: nil, limit: 10).conversations[0].maxSeq
        let holder = try await RowLockHolder(store, "SELECT 1 FROM conversations WHERE id = \(group) FOR UPDATE")
        let sends = (0..<2).map { _ in
            Task {
                try await store.appendMessage(
                    try contract.text("once", to: .conversation(group), from: users[1], id: "same"))
            }
        }
        // The first queues on the row, the second behind the first.
        try await waitForBlocked(store, behind: holder.pid, depth: 1)
        try await waitForBlocked(store, behind: holder.pid, depth: 2)
        try await holder.release()
        let results = [try await sends[0].value, try await sends[1].value]
        #expect(results.map(\.duplicate).sorted { !$0 && $1 } == [false, true])
        #expect(results[0].message.id == results[1].message.id)
        let after = try await store.sync(userId: users[0], since: nil, limit: 10).conversations[0].maxSeq
        #expect(after == before + 1, "one message, one seq")
        try await store.close()
    }
}
