import Dispatch
import GRDB
import ParleyTesting
import Synchronization
import Testing

@testable import ParleyStoreSQLite

/// Group commit waits before a transaction only while writers are concurrent, and the
/// writes that arrive during the wait share one transaction.
struct GroupCommitDelayTests {
    /// Pauses of group commit, each held until the test opens it.
    private final class Pauses: Sendable {
        private let state = Mutex<(taken: [Duration], held: [CheckedContinuation<Void, Never>])>(([], []))

        var taken: [Duration] { state.withLock { $0.taken } }
        var heldCount: Int { state.withLock { $0.held.count } }

        func hold(_ duration: Duration) async {
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    state.taken.append(duration)
                    state.held.append(continuation)
                }
            }
        }

        func open() {
            let held = state.withLock { state in
                defer { state.held = [] }
                return state.held
            }
            for continuation in held { continuation.resume() }
        }
    }

    /// Counts the writer's commits.
    private final class Commits: TransactionObserver, Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .acquiring) }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { count.add(1, ordering: .releasing) }
        func databaseDidRollback(_ db: Database) {}
    }

    @Test func writesArrivingWhileWritersAreConcurrentWaitAndCommitTogether() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/commit-delay.sqlite")
        let commits = Commits()
        try await store.pool.write { db in
            try db.execute(sql: "CREATE TABLE probe (n INTEGER)")
            db.add(transactionObserver: commits)
        }
        let pauses = Pauses()
        let groupCommit = GroupCommit(delay: .milliseconds(5), pause: { await pauses.hold($0) })
        let holdingTheWriter = DispatchSemaphore(value: 0)
        @Sendable func insert(_ n: Int, holding release: DispatchSemaphore? = nil) -> Task<Void, any Error> {
            Self.insert(n, into: store, through: groupCommit, holding: release.map { ($0, holdingTheWriter) })
        }

        // A write alone is not delayed, then or after.
        try await insert(0).value
        #expect(pauses.taken.isEmpty)

        // Two writes wait together behind one that holds the writer, and commit as a batch of two.
        let release = DispatchSemaphore(value: 0)
        let holding = insert(1, holding: release)
        try await eventually { holdingTheWriter.wait(timeout: .now()) == .success }
        let second = insert(2)
        let third = insert(3)
        try await eventually { groupCommit.waitingCount == 2 }
        release.signal()
        try await holding.value
        try await second.value
        try await third.value

        // Having committed two together, it pauses before the next transaction; the writes
        // that come meanwhile wait, and commit in one transaction when the pause ends.
        try await eventually { pauses.heldCount == 1 }
        #expect(pauses.taken == [.milliseconds(5)])
        let committed = commits.value
        let fourth = insert(4)
        let fifth = insert(5)
        try await eventually { groupCommit.waitingCount == 2 }
        #expect(commits.value == committed)
        pauses.open()
        try await fourth.value
        try await fifth.value
        #expect(commits.value == committed + 1)

        // After that batch of two it pauses once more, finds nobody, and stops: a write after
        // that is alone again, and not delayed.
        try await eventually { pauses.heldCount == 1 }
        pauses.open()
        try await insert(6).value
        #expect(pauses.taken.count == 2)
        let rows = try await store.pool.read { db in try Int.fetchAll(db, sql: "SELECT n FROM probe ORDER BY n") }
        #expect(rows == Array(0...6))
        try store.close()
    }

    /// A batch that is already full is taken at once, even while writers are concurrent.
    @Test func aFullBatchIsNotDelayed() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/commit-delay-full.sqlite")
        try await store.pool.write { db in try db.execute(sql: "CREATE TABLE probe (n INTEGER)") }
        let pauses = Pauses()
        let groupCommit = GroupCommit(maxBatch: 2, delay: .milliseconds(5), pause: { await pauses.hold($0) })
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Self.insert(0, into: store, through: groupCommit, holding: (release, holding))
        try await eventually { holding.wait(timeout: .now()) == .success }
        var queued: [Task<Void, any Error>] = []
        for n in 1...4 {
            queued.append(Self.insert(n, into: store, through: groupCommit))
            try await eventually { groupCommit.waitingCount == n }
        }
        release.signal()
        try await first.value
        // Two full batches of two: the second is taken without a pause (else its writes
        // would wait for the held pause), and the pause comes after it.
        try await eventually {
            try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM probe") } == 5
        }
        try await eventually { pauses.heldCount == 1 }
        #expect(pauses.taken.count == 1)
        pauses.open()
        for task in queued { try await task.value }
        try store.close()
    }

    /// Inserts `n` into `probe` through `groupCommit`; with `holding`, signals its second
    /// semaphore from inside the transaction and waits there for its first.
    private static func insert(
        _ n: Int, into store: SQLiteStore, through groupCommit: GroupCommit,
        holding: (release: DispatchSemaphore, entered: DispatchSemaphore)? = nil
    ) -> Task<Void, any Error> {
        Task {
            try await groupCommit.write(to: store) { db in
                try db.execute(sql: "INSERT INTO probe (n) VALUES (?)", arguments: [n])
                if let holding {
                    holding.entered.signal()
                    holding.release.wait()
                }
            }
        }
    }
}
