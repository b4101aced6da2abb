import PostgresNIO
import Synchronization

/// The names under which this process prepares its statements: one for each SQL text and
/// parameter types, shared by every connection, so that PostgreSQL parses and plans a
/// statement once per connection and then runs it by name. Sent unnamed, as PostgresNIO
/// sends a query, every execution was parsed, analysed and planned again: half of
/// PostgreSQL's CPU for a send (BENCHMARKS.md, "Statements prepared once per connection").
///
/// A connection remembers a statement that failed to prepare (PostgresNIO answers every
/// later use of the name with that failure), and PostgreSQL refuses to run a prepared
/// statement whose result columns a migration changed. So a statement that fails with
/// anything but an error of its values is given a new name, which every connection
/// prepares afresh on its next use.
final class PreparedStatements: Sendable {
    /// What one name stands for.
    struct Key: Hashable, Sendable {
        let sql: String
        let types: [PostgresDataType]
    }

    /// A statement to run by name.
    struct Statement: Sendable {
        let name: String
        let key: Key
    }

    /// The statements of the whole process.
    static let shared = PreparedStatements(limit: 1_000)

    private struct State {
        var names: [Key: String] = [:]
        var issued = 0
    }

    private let limit: Int
    private let state = Mutex(State())

    /// A catalogue that gives out at most `limit` names, retired ones included; past it, new
    /// statements run unnamed. A retired name stays prepared on the connections that had it
    /// (neither PostgreSQL nor PostgresNIO is told to forget it), so this bounds what each
    /// connection holds.
    init(limit: Int) { self.limit = limit }

    /// The named statement for `sql` with parameters of `types`, or nil when the catalogue
    /// is full.
    func statement(_ sql: String, types: [PostgresDataType]) -> Statement? {
        let key = Key(sql: sql, types: types)
        return state.withLock { state in
            if let name = state.names[key] { return Statement(name: name, key: key) }
            guard state.issued < limit else { return nil }
            return Statement(name: Self.issue(key, in: &state), key: key)
        }
    }

    /// Gives `statement`'s text a new name if it still has the one that failed with
    /// `error`, unless the failure was one of the values bound (a duplicate key, a bad
    /// number, a raised exception), which leaves the prepared statement sound. A deadlock
    /// retires the name: it may have struck the preparation itself (parsing takes table
    /// locks), and PostgresNIO answers every later use of a failed preparation with its error.
    func failed(_ statement: Statement, with error: any Error) {
        guard let sqlState = (error as? PSQLError)?.serverInfo?[.sqlState],
            !["22", "23", "P0"].contains(sqlState.prefix(2))
        else { return }
        state.withLock { state in
            if state.names[statement.key] == statement.name { _ = Self.issue(statement.key, in: &state) }
        }
    }

    /// How many names have been given out, retired ones included.
    var issued: Int { state.withLock { $0.issued } }

    private static func issue(_ key: Key, in state: inout State) -> String {
        state.issued += 1
        let name = "parley_\(state.issued)"
        state.names[key] = name
        return name
    }
}

/// The statement ``PostgresConnection/rows(_:_:prepared:logger:)`` runs by name.
/// PostgresNIO reads a prepared statement's name and text from its type, so this one type
/// serves every statement: each execution sets them as a task-local value around the call
/// that reads them.
struct NamedQuery: PostgresPreparedStatement {
    typealias Row = PostgresRow

    /// The statement this task is running.
    @TaskLocal static var running = PreparedStatements.Statement(name: "", key: .init(sql: "", types: []))

    static var name: String { running.name }
    static var sql: String { running.key.sql }
    static var bindingDataTypes: [PostgresDataType] { running.key.types }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}
