import Foundation
import GRDB
import ParleyCore
import ParleyStore

/// The embedded default backend: one SQLite file in WAL mode, through a GRDB pool.
///
/// Writes are serialised by SQLite's single writer, which is what makes seq allocation
/// dense without further locking; reads run concurrently on snapshots. Each change is
/// published on ``fanOut`` from GRDB's after-commit hook, which runs on the writer queue, so
/// subscribers see changes in commit order.
public final class SQLiteStore: ParleyStore {
    /// How hard a commit waits for the disk.
    public enum Durability: String, Sendable, CaseIterable {
        /// fsync on every commit: an acknowledged message survives power loss.
        case full
        /// fsync at WAL checkpoints: survives a process crash, may lose the last commits on power loss.
        case normal
    }

    let pool: DatabasePool
    /// Where committed changes go: this node's fan-out (SQLite serves one node).
    public let fanOut: LocalFanOut
    let groupCommit: GroupCommit
    /// Member lists by version, so that a send does not read them (filled after commits).
    let memberCache = MemberCache()
    /// Rate limits: in memory, as the database serves this node alone.
    let rateBuckets = RateBuckets()
    /// The actions the current transaction (and its savepoints) runs once it commits.
    private let commitActions = CommitActions()

    /// How long group commit waits before a transaction while writers are concurrent, to
    /// gather more writes into it (see ``GroupCommit``): 1 ms.
    public static let defaultCommitDelay: Duration = .milliseconds(1)

    /// Opens (creating if needed) the database at `path` and migrates it to the current schema.
    public init(
        path: String, durability: Durability = .full, commitDelay: Duration = defaultCommitDelay,
        fanOut: LocalFanOut = LocalFanOut()
    ) throws {
        self.fanOut = fanOut
        groupCommit = GroupCommit(delay: commitDelay)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "parley"
        configuration.prepareDatabase { db in
            // Each write of a group commit runs in a savepoint, whose journal (the original of
            // every page it changes) SQLite writes to a temporary file once it passes 64 KiB:
            // a `pwrite` per page of every first message. The writer keeps it in memory.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA temp_store = MEMORY") }
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        // Only the writer commits, so only its setting counts, and it must be made here: GRDB
        // sets `synchronous = NORMAL` on the writer when it turns WAL on, after every
        // `prepareDatabase`, so a FULL set there was undone (until 2026-12-02 every commit was
        // fsynced only at checkpoints).
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        }
        try SQLiteSchema.migrator.migrate(pool)
    }

    /// Opens the store in `directory` (created if missing) as `parley.sqlite`.
    public convenience init(
        directory: String, durability: Durability = .full, commitDelay: Duration = defaultCommitDelay,
        fanOut: LocalFanOut = LocalFanOut()
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try self.init(
            path: (directory as NSString).appendingPathComponent("parley.sqlite"), durability: durability,
            commitDelay: commitDelay, fanOut: fanOut)
    }

    public func checkReady() async throws {
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    /// Closes the database; call after the server stopped using it.
    public func close() throws {
        try pool.close()
    }

    /// Runs `body` in a write transaction, as `pool.write` does, and drops what it registered
    /// for the commit if the transaction ends without committing. On an interrupt, and on
    /// some full-disk and I/O errors, SQLite rolls the whole transaction back by itself, and
    /// GRDB then tells no observer: without this, the actions would run with the next
    /// transaction's commit and announce changes that were never stored. Every write of the
    /// store goes through here.
    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in
            do {
                var value: T?
                try db.inTransaction {
                    value = try body(db)
                    return .commit
                }
                return value!
            } catch {
                self.commitActions.drop(from: db)
                throw error
            }
        }
    }

    /// Allocates the next change version; every changed conversation or membership row gets one.
    func nextVersion(_ db: Database) throws -> Int64 {
        try db.first("UPDATE counters SET value = value + 1 WHERE name = 'change_version' RETURNING value", []) {
            columns in try columns[0] as Int64
        }!
    }

    /// Publishes `change` once the current transaction commits (in commit order).
    func publishAfterCommit(_ db: Database, _ change: StoreChange) {
        let fanOut = self.fanOut
        afterCommit(db) { fanOut.deliver(.stored(change)) }
    }

    /// Runs `action` once the current transaction commits (in commit order), and never if it
    /// (or the savepoint of ``inSavepointPublishingOnCommit(_:_:)`` around it) rolls back.
    func afterCommit(_ db: Database, _ action: @escaping @Sendable () -> Void) {
        commitActions.add(action, in: db)
    }

    /// Runs `body` in a savepoint. What it registers for the commit runs only if the
    /// savepoint itself was kept: GRDB's commit hooks do not see a savepoint roll back.
    func inSavepointPublishingOnCommit<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try commitActions.inSavepoint(db, body)
    }
}
