import GRDB
import GRDBSQLite

/// Queries through each connection's statement cache, with rows decoded while they are still
/// backed by their statement. GRDB prepares raw SQL anew on every call (running its
/// authorizer over every column), and a copied row (`fetchAll`, `fetchOne`) finds a column by
/// comparing every column's lowercased name; on the paths that open conversations and add
/// members those two were a large part of the cost. Only for SQL whose text is one of a fixed
/// set: every distinct text stays prepared for the connection's life.
extension Database {
    /// Executes constant SQL, prepared once per connection, with `values` bound to its `?`
    /// parameters in order; a SELECT's rows are not read. Only inside a transaction (see
    /// ``stepped(_:_:_:)``).
    func run(_ sql: String, _ values: [any StatementBinding] = []) throws {
        _ = try stepped(sql, values) { _ in () }
    }

    /// The first row of constant SQL, read by `read` by column index straight from the
    /// statement; nil when there is none. No `Row` is made: GRDB builds a map of lowercased
    /// column names for every query it reads through rows, and a copied row is searched by
    /// name, which on the send path cost more than its queries' own reading.
    func first<Value>(_ sql: String, _ values: [any StatementBinding], _ read: (Columns) throws -> Value) throws
        -> Value?
    {
        try stepped(sql, values, read)
    }

    /// Binds `values` to the cached statement of `sql` and steps it, handing its first row,
    /// if any, to `read`; the rest are not read.
    ///
    /// This goes to SQLite directly, past GRDB's `StatementArguments` (an array of
    /// existentials made into `DatabaseValue`s, then bound by a closure per value) and the
    /// observation bookkeeping it does around every statement: on the send path, where a
    /// message runs about ten statements, those were more than SQLite's own work for them.
    /// Of what that bookkeeping guards, this keeps one rule itself: the statement must run
    /// inside a transaction, so a write after SQLite rolled the transaction back on an I/O
    /// error throws `SQLITE_ABORT` instead of committing by itself. The rest is the caller's
    /// to keep: only DML and queries (never a statement that changes the schema or a
    /// transaction's state, which GRDB tracks), in accesses that need no check for a
    /// cancelled task (GRDB's interrupt still ends one: its COMMIT throws). GRDB does not see
    /// a failed step either, so after SQLite aborted a transaction in one, GRDB's own notes
    /// of that transaction (its savepoints, `transactionDate`) are stale; the store uses
    /// neither.
    private func stepped<Value>(
        _ sql: String, _ values: [any StatementBinding], _ read: (Columns) throws -> Value
    ) throws -> Value? {
        guard isInsideTransaction else {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: sql)
        }
        let statement = try cachedStatement(sql: sql)
        return try withExtendedLifetime(statement) {
            let handle = statement.sqliteStatement
            defer {
                sqlite3_reset(handle)
                sqlite3_clear_bindings(handle)  // no copy of the last message stays behind
            }
            guard values.count == Int(sqlite3_bind_parameter_count(handle)) else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(values.count)",
                    sql: sql)
            }
            for (offset, value) in values.enumerated() {
                let code = value.bind(to: handle, at: CInt(offset + 1))
                guard code == SQLITE_OK else { throw failure(code, sql) }
            }
            switch sqlite3_step(handle) {
            // A statement with RETURNING made all its changes by its first row.
            case SQLITE_ROW: return try read(Columns(statement: handle))
            case SQLITE_DONE: return nil
            case let code: throw failure(code, sql)
            }
        }
    }

    private func failure(_ code: CInt, _ sql: String) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqliteConnection)), sql: sql
        )
    }
}

/// The columns of the row a statement stands on, read by index (0 is the leftmost); valid
/// until the statement steps again.
struct Columns {
    fileprivate let statement: SQLiteStatement

    fileprivate init(statement: SQLiteStatement) { self.statement = statement }

    /// The value in column `index`; throws when it is NULL where `Value` is not optional, or
    /// is of another type.
    subscript<Value: StatementColumnConvertible>(_ index: CInt) -> Value {
        get throws {
            guard let value = Value.fromStatement(statement, atUncheckedIndex: index) else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISMATCH,
                    message: "Column \(index) of \(String(cString: sqlite3_sql(statement))) holds no \(Value.self).")
            }
            return value
        }
    }
}

extension Row {
    /// Every row of constant SQL, each turned into a value by `decode`.
    static func decodeAll<Value>(
        _ db: Database, sql: String, arguments: StatementArguments = [], _ decode: (Row) throws -> Value
    ) throws -> [Value] {
        try decodeAll(db, sql: sql, arguments: arguments, layout: { _ in () }, { row, _ in try decode(row) })
    }

    /// Every row of constant SQL, each turned into a value by `decode` with where its columns
    /// are, which `locate` finds in the statement once for all its rows.
    static func decodeAll<Layout, Value>(
        _ db: Database, sql: String, arguments: StatementArguments = [], layout locate: (Statement) -> Layout,
        _ decode: (Row, Layout) throws -> Value
    ) throws -> [Value] {
        let statement = try db.cachedStatement(sql: sql)
        let layout = locate(statement)
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var values: [Value] = []
        while let row = try rows.next() { values.append(try decode(row, layout)) }
        return values
    }

    /// The first row of constant SQL turned into a value by `decode`; nil when there is none.
    static func decodeFirst<Value>(
        _ db: Database, sql: String, arguments: StatementArguments = [], _ decode: (Row) throws -> Value
    ) throws -> Value? {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        return try rows.next().map(decode)
    }
}
