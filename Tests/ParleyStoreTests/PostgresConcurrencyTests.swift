import Foundation
import ParleyCore
import ParleyStore
import ParleyTesting
import PostgresNIO
import Synchronization
import Testing

@testable import ParleyStorePostgres

/// Sends and marks in different conversations run side by side on PostgreSQL, and a sync
/// still sees every change exactly once. A second session holds row locks to stop a write
/// half-way.
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

    /// `count` texts from `sender` into `group` through `store` ("0", "1", …), each sent by a
    /// task of its own, so that they wait side by side.
    func sends(_ count: Int, into group: ConversationID, from sender: UserID, via store: PostgresStore)
        -> [Task<AppendResult, any Error>]
    {
        (0..<count).map { index in
            Task {
                try await store.appendMessage(
                    try contract.text("\(index)", to: .conversation(group), from: sender, id: "s\(index)"))
            }
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
        try await waitUntil(store, counts: chain, behind: pid, atLeast: 1)
    }

    /// Waits until at least `count` sessions wait behind `pid`, directly or behind another
    /// waiter (those that queue on a held row wait for the first in the queue).
    func waitForQueue(_ store: PostgresStore, behind pid: Int64, count: Int64) async throws {
        try await waitUntil(store, counts: Self.queue, behind: pid, atLeast: count)
    }

    /// How many sessions wait behind `$1`, directly or behind another that does.
    static let queue = """
        WITH RECURSIVE queue(pid) AS (
            SELECT $1::int UNION
            SELECT a.pid FROM pg_stat_activity a JOIN queue q ON q.pid = ANY(pg_blocking_pids(a.pid)))
        SELECT count(*) - 1 FROM queue
        """

    /// Polls `sql` (a count, with `pid` as `$1`) until it reaches `count`, for up to 60 s.
    private func waitUntil(_ store: PostgresStore, counts sql: String, behind pid: Int64, atLeast count: Int64)
        async throws
    {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await counted(store, sql, behind: pid) >= count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CancellationError()  // too few waited behind it
    }

    /// What `sql` (a count, with `pid` as `$1`) answers now.
    func counted(_ store: PostgresStore, _ sql: String, behind pid: Int64) async throws -> Int64 {
        try await store.client.withConnection { connection in
            try await connection.scalar(Int64.self, sql, [.int(pid)], logger: store.logger)!
        }
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

    /// While a send waits half-way in one conversation, every shared write elsewhere goes
    /// through: a first message that opens a direct conversation, a send into an existing
    /// direct conversation, and read and delivery marks (in a group and in a direct
    /// conversation).
    @Test func firstMessagesAndMarksElsewhereDoNotWaitForAHeldSend() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob", "carol", "dave")
        let held = try await store.createGroup(name: "held", ownerId: users[0], memberIds: users, at: 1).id
        let group = try await store.createGroup(name: "other", ownerId: users[0], memberIds: users, at: 1).id
        let inGroup = try await store.appendMessage(
            try contract.text("before", to: .conversation(group), from: users[0], id: "g1")
        ).message
        let direct = try await store.appendMessage(
            try contract.text("before", to: .directWith(users[3]), from: users[2], id: "d1")
        ).message
        let holder = try await RowLockHolder(store, "SELECT 1 FROM conversations WHERE id = \(held) FOR UPDATE")
        let stopped = Task {
            try await store.appendMessage(
                try contract.text("stopped", to: .conversation(held), from: users[1], id: "s1"))
        }
        try await waitForBlocked(store, behind: holder.pid, depth: 1)
        let others: [(String, Task<Void, any Error>)] = [
            (
                "a first message",
                Task {
                    _ = try await store.appendMessage(
                        try contract.text("hello", to: .directWith(users[1]), from: users[0], id: "n1"))
                }
            ),
            (
                "a send into an existing direct conversation",
                Task {
                    _ = try await store.appendMessage(
                        try contract.text("again", to: .directWith(users[2]), from: users[3], id: "d2"))
                }
            ),
            (
                "a read mark in a group",
                Task { _ = try await store.markRead(group, by: users[1], upTo: inGroup.seq, at: 2) }
            ),
            (
                "a delivery mark in a group",
                Task { _ = try await store.markDelivered(group, by: users[2], upTo: inGroup.seq) }
            ),
            (
                "a delivery mark in a direct conversation",
                Task { _ = try await store.markDelivered(direct.conversationId, by: users[3], upTo: direct.seq) }
            ),
        ]
        for (name, task) in others {
            let wentThrough = await ends(task, within: .seconds(60))
            #expect(wentThrough, "\(name) went through while a send waited elsewhere")
        }
        try await holder.release()
        for (_, task) in others { try await task.value }
        #expect(try await stopped.value.message.seq == 1)
        try await store.close()
    }

    /// A delivery mark in a group stamps nothing, so it locks only its member's row: it goes
    /// through while a send into the same group waits on the conversation's row. (A client
    /// may send one for each message it receives; queued behind the group's sends, they
    /// would slow every send of a busy group.)
    @Test func aDeliveryMarkInAGroupDoesNotWaitForASendIntoIt() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob", "carol")
        let group = try await store.createGroup(name: "g", ownerId: users[0], memberIds: users, at: 1).id
        let first = try await store.appendMessage(
            try contract.text("first", to: .conversation(group), from: users[0], id: "m1")
        ).message
        let holder = try await RowLockHolder(store, "SELECT 1 FROM conversations WHERE id = \(group) FOR UPDATE")
        let stopped = Task {
            try await store.appendMessage(
                try contract.text("second", to: .conversation(group), from: users[1], id: "m2"))
        }
        try await waitForBlocked(store, behind: holder.pid, depth: 1)
        let marking = Task { try await store.markDelivered(group, by: users[2], upTo: first.seq) }
        let wentThrough = await ends(marking, within: .seconds(60))
        #expect(wentThrough, "the delivery mark went through while a send into its group waited")
        try await holder.release()
        #expect(try await marking.value.seq == first.seq)
        #expect(try await stopped.value.message.seq == 2)
        let receipts = try await store.receipts(of: group, for: users[0]).members
        #expect(receipts.first { $0.userId == users[2] }?.deliveredSeq == first.seq)
        try await store.close()
    }

    /// A node's fan-out loads what it hears on a connection of its own. Here every pooled
    /// connection of one node is taken by a send waiting on a row another node holds, and
    /// more sends queue for the pool; a message the other node stores meanwhile must still
    /// reach the first node's subscribers (from the pool, its load would wait behind them).
    @Test func aNodeDeliversWhileEveryPooledConnectionWaitsOnAWrite() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let other = try await PostgresStore.connect(
            url: TestBackend.postgresURL!, schema: store.schema, logger: store.logger)
        let users = try await contract.makeUsers(store, "alice", "bob")
        let held = try await store.createGroup(name: "held", ownerId: users[0], memberIds: users, at: 1).id
        let open = try await store.createGroup(name: "open", ownerId: users[0], memberIds: users, at: 1).id
        let (fanOut, stopListening) = try await StoreBackend.postgres.listen(store)
        defer { stopListening() }
        let heard = Mutex<Set<String>>([])
        fanOut.subscribe { item in
            if case .stored(.message(let message, _, _)) = item {
                heard.withLock { _ = $0.insert(message.clientMsgId) }
            }
        }
        let holder = try await RowLockHolder(other, "SELECT 1 FROM conversations WHERE id = \(held) FOR UPDATE")
        // The pool holds 16 connections: 24 sends take them all and queue for more.
        let stuck = sends(24, into: held, from: users[0], via: store)
        try await waitForQueue(other, behind: holder.pid, count: 16)
        _ = try await other.appendMessage(
            try contract.text("through", to: .conversation(open), from: users[1], id: "through"))
        let delivered = try await comesTrue { heard.withLock { $0.contains("through") } }
        #expect(delivered, "the node delivered while its pool was taken")
        try await holder.release()
        for task in stuck { _ = try await task.value }
        let drained = try await comesTrue { heard.withLock { $0.count } == 25 }
        #expect(drained, "the held sends were delivered too")
        try await other.close()
        try await store.close()
    }

    /// A node's pool opens at most `connections`: sends beyond them wait for one of its
    /// connections, not for a connection of their own.
    @Test func aStoreOpensNoMorePooledConnectionsThanItIsAllowed() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let small = try await PostgresStore.connect(
            url: TestBackend.postgresURL!, schema: store.schema, connections: 3, logger: store.logger)
        let users = try await contract.makeUsers(store, "alice", "bob")
        let held = try await store.createGroup(name: "held", ownerId: users[0], memberIds: users, at: 1).id
        let holder = try await RowLockHolder(store, "SELECT 1 FROM conversations WHERE id = \(held) FOR UPDATE")
        let waiting = sends(8, into: held, from: users[0], via: small)
        try await waitForQueue(store, behind: holder.pid, count: 3)
        // Time for a pool without a bound to open a connection for each of the eight.
        try await Task.sleep(for: .seconds(1))
        #expect(try await counted(store, Self.queue, behind: holder.pid) == 3)
        try await holder.release()
        var seqs: [Int64] = []
        for send in waiting { seqs.append(try await send.value.message.seq) }
        #expect(seqs.sorted() == Array(1...8))
        try await small.close()
        try await store.close()
    }

    /// Two first messages between the same two people at once: the second to store the
    /// conversation collides on its key, runs again and sends into the first's. One
    /// conversation, both messages, seqs 1 and 2.
    @Test func twoFirstMessagesBetweenTheSamePairAtOnceOpenOneConversation() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob")
        // Bob's user row is held: the first send stores the conversation, then waits to add
        // Bob as its member (the member row's key refers to his row); the second queues on
        // the conversation's key behind it.
        let holder = try await RowLockHolder(store, "SELECT 1 FROM users WHERE id = \(users[1]) FOR UPDATE")
        let first = Task {
            try await store.appendMessage(try contract.text("hi", to: .directWith(users[1]), from: users[0], id: "a1"))
        }
        try await waitForBlocked(store, behind: holder.pid, depth: 1)
        let second = Task {
            try await store.appendMessage(try contract.text("hey", to: .directWith(users[0]), from: users[1], id: "b1"))
        }
        try await waitForBlocked(store, behind: holder.pid, depth: 2)
        // It waits for the first's transaction (the key), not for a write lock taken alone.
        let awaited = try await store.client.withConnection { connection in
            try await connection.rows(
                """
                SELECT l.locktype FROM pg_locks l WHERE NOT l.granted AND l.pid IN (
                    SELECT a.pid FROM pg_stat_activity a WHERE EXISTS (
                        SELECT 1 FROM pg_stat_activity s
                        WHERE $1 = ANY(pg_blocking_pids(s.pid)) AND s.pid = ANY(pg_blocking_pids(a.pid))))
                """,
                [.int(holder.pid)], logger: store.logger
            ).map { try $0.text("locktype") }
        }
        #expect(awaited == ["transactionid"])
        try await holder.release()
        let messages = [try await first.value.message, try await second.value.message]
        #expect(messages[0].conversationId == messages[1].conversationId)
        #expect(messages.map(\.seq) == [1, 2])
        let conversations = try await store.sync(userId: users[0], since: nil, limit: 10).conversations
        #expect(conversations.map(\.id) == [messages[0].conversationId])
        #expect(conversations.first?.maxSeq == 2)
        try await store.close()
    }

    /// Two marks of one member at once, the higher first: the lower one, run after it,
    /// reads the watermark the higher one left and does not move it back. For delivery
    /// in a group (the member's row alone) and for reading (the conversation's row first).
    @Test(arguments: ["delivered", "read"])
    func twoMarksAtOnceNeverMoveTheWatermarkBack(_ mark: String) async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob")
        let group = try await store.createGroup(name: "g", ownerId: users[0], memberIds: users, at: 1).id
        for index in 1...10 {
            _ = try await store.appendMessage(
                try contract.text("m\(index)", to: .conversation(group), from: users[0], id: "m\(index)"))
        }
        let move: @Sendable (Int64) async throws -> Void = { seq in
            if mark == "read" {
                _ = try await store.markRead(group, by: users[1], upTo: seq, at: 2)
            } else {
                _ = try await store.markDelivered(group, by: users[1], upTo: seq)
            }
        }
        let holder = try await RowLockHolder(
            store, "SELECT 1 FROM members WHERE conversation_id = \(group) AND user_id = \(users[1]) FOR UPDATE")
        let higher = Task { try await move(10) }
        try await waitForBlocked(store, behind: holder.pid, depth: 1)
        let lower = Task { try await move(4) }
        try await waitForBlocked(store, behind: holder.pid, depth: 2)
        try await holder.release()
        try await higher.value
        try await lower.value
        let bob = try await store.receipts(of: group, for: users[0]).members.first { $0.userId == users[1] }
        #expect((mark == "read" ? bob?.readSeq : bob?.deliveredSeq) == 10)
        try await store.close()
    }

    /// A node hears of commits through NOTIFY, possibly long after them. Heard only after the
    /// group's members changed twice (the notes are kept, then loaded as the fan-out loads
    /// them), each message must still reach the members of the moment it was sent, not those
    /// of the moment it is heard.
    @Test func aNodeThatHearsOfSendsAndMarksLateStillReachesTheMembersOfTheirMoment() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob", "cyd")
        let (alice, bob, cyd) = (users[0], users[1], users[2])
        let group = try await store.createGroup(name: "g", ownerId: alice, memberIds: [bob], at: 1).id
        try await withNotes(of: store) { heard, loader in
            func send(_ id: String) async throws {
                _ = try await store.appendMessage(try contract.text(id, to: .conversation(group), from: alice, id: id))
            }
            try await send("2")
            _ = try await store.markRead(group, by: bob, upTo: 2, at: 1)
            try await store.addMembers([cyd], to: group, by: alice, at: 1)
            try await send("4")
            _ = try await store.changeGroup(group, .removeMember(bob), by: alice, at: 1)
            try await send("6")
            try await store.addMembers([bob], to: group, by: alice, at: 1)
            try await send("8")

            // Now the node hears them, in the order PostgreSQL delivered them.
            var heardBy: [Int64: Set<UserID>] = [:]
            var receipts: [Set<UserID>] = []
            var loaded = 0
            let deadline = ContinuousClock.now + .seconds(30)
            while heardBy.count < 7 || receipts.isEmpty, ContinuousClock.now < deadline {
                for note in try heard().dropFirst(loaded) {
                    loaded += 1
                    for change in try await store.changes(for: note, on: loader) {
                        switch change {
                        case .message(let message, let recipients, _) where message.conversationId == group:
                            heardBy[message.seq] = Set(recipients)
                        case .read(_, let recipients): receipts.append(Set(recipients))
                        default: break
                        }
                    }
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(
                heardBy == [
                    1: [alice, bob], 2: [alice, bob, cyd], 3: [alice, bob, cyd], 4: [alice, bob, cyd],
                    5: [alice, cyd], 6: [alice, bob, cyd], 7: [alice, bob, cyd],
                ], "bob, back by the time the node hears, still misses what was sent while he was away")
            #expect(receipts == [[alice, bob]], "bob's read receipt goes to the members of its moment, not to cyd")
        }
        try await store.close()
    }

    /// Another node delivers a new message from its note, without reading it (its loading
    /// connection here is into another store, where a read finds nothing), whether the
    /// storing statement sent the note (into a group) or it followed the transaction's other
    /// notes (a first direct message), and whatever the text holds; a message too large to
    /// carry is read.
    @Test func aNodeTakesANewMessageFromItsNoteUnlessItIsTooLargeToCarry() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob")
        let (alice, bob) = (users[0], users[1])
        let group = try await store.createGroup(name: "g", ownerId: alice, memberIds: [bob], at: 1).id
        // A node that stored none of them.
        let node = try await PostgresStore.connect(
            url: TestBackend.postgresURL!, schema: store.schema, logger: store.logger)
        let elsewhere = try await StoreBackend.postgres.make() as! PostgresStore
        let empty = LoadingConnection(
            try await PostgresConnection.connect(
                configuration: elsewhere.configuration(for: .load), id: 11, logger: store.logger))
        try await withNotes(of: store) { heard, loader in
            func send(_ new: NewMessage) async throws -> Message { try await store.appendMessage(new).message }
            let first = try await send(
                try contract.text("first, 你好 \"quoted\"", to: .directWith(bob), from: alice, id: "d1"))
            let question = try await send(
                try contract.text("question", to: .conversation(group), from: alice, id: "g1"))
            var answer = try contract.text(
                "\u{1}id\u{1} -9223372036854775808 \\u0001 👍", to: .conversation(group), from: bob, id: "g2")
            answer.replyTo = question.id
            let reply = try await send(answer)
            let large = try await send(
                try contract.text(String(repeating: "长", count: 3_000), to: .conversation(group), from: alice, id: "g3")
            )
            #expect(reply.quote != nil)

            var notes: [Int64: ChangeNote] = [:]
            let deadline = ContinuousClock.now + .seconds(30)
            while notes.count < 4, ContinuousClock.now < deadline {
                for note in try heard() { if let id = note.message { notes[id] = note } }
                try await Task.sleep(for: .milliseconds(5))
            }
            for message in [first, question, reply] {
                let note = try #require(notes[message.id.rawValue])
                #expect(note.carried != nil)
                guard case .message(let carried, _, _) = try await node.changes(for: note, on: empty).first else {
                    Issue.record("no message from \(note)")
                    continue
                }
                #expect(carried == message)
                #expect(try await node.message(loader.connection, message.id) == carried, "as its row reads")
            }
            let note = try #require(notes[large.id.rawValue])
            #expect(note.carried == nil && (note.payload?.utf8.count ?? 0) < 200)
            #expect(try await node.changes(for: note, on: empty).isEmpty, "read, and not found elsewhere")
            guard case .message(let read, _, _) = try await node.changes(for: note, on: loader).first else {
                Issue.record("no message from the large one's note")
                return
            }
            #expect(read == large)
        }
        try await empty.connection.close()
        try await elsewhere.close()
        try await node.close()
        try await store.close()
    }

    /// PostgresNIO never answers a statement sent on a connection that has closed: a load
    /// on the fan-out's lost loading connection fails instead of waiting forever, so that the
    /// node listens again and has its clients resync.
    @Test func aLoadOnALostLoadingConnectionFailsInsteadOfWaitingForever() async throws {
        let store = try await StoreBackend.postgres.make() as! PostgresStore
        let users = try await contract.makeUsers(store, "alice", "bob")
        let group = try await store.createGroup(name: "g", ownerId: users[0], memberIds: [users[1]], at: 1).id
        let loader = LoadingConnection(
            try await PostgresConnection.connect(
                configuration: store.configuration(for: .load), id: 12, logger: store.logger))
        // A receipt at a members version no cache holds: its members are read.
        let note = ChangeNote(membersVersion: 99, read: [group.rawValue, users[1].rawValue, 1])
        #expect(try await store.changes(for: note, on: loader).count == 1)
        try await loader.connection.close()
        // What comes first: the load's answer or ten seconds.
        let (outcomes, outcome) = AsyncStream<String>.makeStream()
        Task {
            do {
                _ = try await store.changes(for: note, on: loader)
                outcome.yield("loaded")
            } catch {
                outcome.yield("failed: \(error)")
            }
        }
        Task {
            try? await Task.sleep(for: .seconds(10))
            outcome.yield("still waiting after 10 s")
        }
        var first = ""
        for await value in outcomes {
            first = value
            break
        }
        #expect(first.hasPrefix("failed: unavailable"))
        try await store.close()
    }

    /// Runs `body` with what `store`'s NOTIFYs carried so far (`heard()`, in the order
    /// PostgreSQL delivered them, to a LISTEN of the test's own) and a loading connection to
    /// turn them into changes, as a node's fan-out does.
    private func withNotes(
        of store: PostgresStore,
        _ body: (_ heard: () throws -> [ChangeNote], _ loader: LoadingConnection) async throws -> Void
    ) async throws {
        let listener = try await PostgresConnection.connect(
            configuration: store.configuration(for: .listen), id: 9, logger: store.logger)
        let loader = LoadingConnection(
            try await PostgresConnection.connect(
                configuration: store.configuration(for: .load), id: 10, logger: store.logger))
        let (listening, ready) = AsyncStream<Void>.makeStream()
        let kept = Mutex<[String]>([])
        let keeping = Task {
            try await listener.listen(on: store.channel) { notifications in
                ready.yield()
                for try await notification in notifications { kept.withLock { $0.append(notification.payload) } }
            }
        }
        for await _ in listening { break }
        defer { keeping.cancel() }
        try await body({ try kept.withLock { $0 }.map { try JSONText.decode(ChangeNote.self, from: $0) } }, loader)
        try await listener.close()
        try await loader.connection.close()
    }
}
