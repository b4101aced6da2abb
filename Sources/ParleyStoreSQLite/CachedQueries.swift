import GRDB
import GRDBSQLite

/// Queries through each connection's statement cache, with rows decoded while they are still
/// backed by their statement. GRDB prepares raw SQL anew on every call (running its
/// authorizer over every column), and a copied row (`fetchAll`, `fetchOne`) finds a column by
/// comparing every column's lowercased name; on the paths that open conversations and add
/// members those two were a large part of the cost. Only for SQL whose text is one of a fixed
/// set: every distinct text stays prepared for the connection's life.
extension Database {
    /// Executes constant SQL, prepared once per connection.
    func run(_ sql: String, _ arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// The first row of constant SQL, read by `read` by column index straight from the
    /// statement; nil when there is none. No `Row` is made: GRDB builds a map of lowercased
    /// column names for every query it reads through rows, and a copied row is searched by
    /// name, which on the send path cost more than its queries' own reading.
    func first<Value>(_ sql: String, _ arguments: StatementArguments, _ read: (Columns) throws -> Value) throws
        -> Value?
    {
        let cursor = try ColumnsCursor(try cachedStatement(sql: sql), arguments: arguments)
        return try withExtendedLifetime(cursor) { try cursor.next().map(read) }
    }
}

/// The columns of the row a statement stands on, read by index (0 is the leftmost); valid
/// until the statement steps again.
struct Columns {
    fileprivate let statement: SQLiteStatement

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

/// Steps a statement and hands out its rows as ``Columns``; resets the statement when done
/// with, as GRDB's own cursors do.
private final class ColumnsCursor: DatabaseCursor {
    typealias Element = Columns
    let _statement: Statement
    var _isDone = false

    init(_ statement: Statement, arguments: StatementArguments) throws {
        _statement = statement
        try statement.setArguments(arguments)  // resets it first
    }

    deinit { sqlite3_reset(_statement.sqliteStatement) }

    func _element(sqliteStatement: SQLiteStatement) -> Columns { Columns(statement: sqliteStatement) }
}

extension Row {
    /// Every row of constant SQL, each turned into a value by `decode`.
    static func decodeAll<Value>(
        _ db: Database, sql: String, arguments: StatementArguments = [], _ decode: (Row) throws -> Value
    ) throws -> [Value] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var values: [Value] = []
        while let row = try rows.next() { values.append(try decode(row)) }
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
