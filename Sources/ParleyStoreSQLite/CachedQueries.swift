import GRDB

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
