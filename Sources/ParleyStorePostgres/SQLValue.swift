import ParleyStore
import PostgresNIO

/// A bound parameter: the few column types Parley uses.
enum SQLValue: Sendable {
    case int(Int64)
    case text(String)
    case bool(Bool)
    case double(Double)
    case null

    init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
    init(_ value: Int64?) { self = value.map(SQLValue.int) ?? .null }

    /// The type PostgreSQL is told the parameter has (none for a null: it infers one).
    var dataType: PostgresDataType {
        switch self {
        case .int: .int8
        case .text: .text
        case .bool: .bool
        case .double: .float8
        case .null: .null
        }
    }
}

extension PostgresConnection {
    /// Runs `sql` with `$1…` placeholders bound to `values` and collects the rows.
    ///
    /// The statement is prepared once per connection and run by name afterwards
    /// (``PreparedStatements``), unless `prepared` is false: for statements run once
    /// (migrations), and for those whose best plan depends on the values bound (search
    /// patterns) or whose text varies with them (lists of placeholders), which PostgreSQL
    /// should plan for each execution.
    @discardableResult
    func rows(_ sql: String, _ values: [SQLValue] = [], prepared: Bool = true, logger: Logger) async throws
        -> [PostgresRandomAccessRow]
    {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .int(let number): binds.append(number)
            case .text(let text): binds.append(text)
            case .bool(let flag): binds.append(flag)
            case .double(let number): binds.append(number)
            case .null: binds.appendNull()
            }
        }
        var result: [PostgresRandomAccessRow] = []
        guard prepared, let statement = PreparedStatements.shared.statement(sql, types: values.map(\.dataType)) else {
            for try await row in try await query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
                result.append(row.makeRandomAccess())
            }
            return result
        }
        do {
            try await NamedQuery.$running.withValue(statement) {
                for try await row in try await execute(NamedQuery(bindings: binds), logger: logger) {
                    result.append(row.makeRandomAccess())
                }
            }
        } catch {
            PreparedStatements.shared.failed(statement, with: error)
            throw error
        }
        return result
    }

    /// The first column of the first row.
    func scalar<T: PostgresDecodable>(
        _ type: T.Type, _ sql: String, _ values: [SQLValue] = [], prepared: Bool = true, logger: Logger
    ) async throws -> T? {
        try await rows(sql, values, prepared: prepared, logger: logger).first.map { try $0[0].decode(T.self) }
    }
}

extension PostgresRandomAccessRow {
    func int(_ column: String) throws -> Int64 { try self[column].decode(Int64.self) }
    func optionalInt(_ column: String) throws -> Int64? { try self[column].decode(Int64?.self) }
    func text(_ column: String) throws -> String { try self[column].decode(String.self) }
    func optionalText(_ column: String) throws -> String? { try self[column].decode(String?.self) }
    func bool(_ column: String) throws -> Bool { try self[column].decode(Bool.self) }

    // The same by index, where a layout found the columns (``PostgresColumns``).
    func int(_ column: Int) throws -> Int64 { try self[column].decode(Int64.self) }
    func optionalInt(_ column: Int) throws -> Int64? { try self[column].decode(Int64?.self) }
    func text(_ column: Int) throws -> String { try self[column].decode(String.self) }
    func optionalText(_ column: Int) throws -> String? { try self[column].decode(String?.self) }
    func bool(_ column: Int) throws -> Bool { try self[column].decode(Bool.self) }
}

/// The columns of a result by name, read once from one of its rows (every row of a result has
/// the same columns), so that a decoder's layout is found once per result: by name, each
/// cell is a dictionary lookup of a `String`, 8 % of a node's CPU for a sync page.
struct PostgresColumns: ColumnLocator {
    private let indexes: [String: Int]

    init(_ row: PostgresRandomAccessRow) {
        var indexes: [String: Int] = [:]
        indexes.reserveCapacity(row.count)
        for (index, cell) in row.enumerated() where indexes[cell.columnName] == nil {
            indexes[cell.columnName] = index
        }
        self.indexes = indexes
    }

    package func index(ofColumn name: String) -> Int? { indexes[name] }
}

extension [PostgresRandomAccessRow] {
    /// Each row decoded by `decode` with the columns `layout` finds, once for all of them.
    func decodeAll<Layout, Value>(
        layout: (PostgresColumns) -> Layout, _ decode: (PostgresRandomAccessRow, Layout) throws -> Value
    ) rethrows -> [Value] {
        guard let first else { return [] }
        let found = layout(PostgresColumns(first))
        return try map { try decode($0, found) }
    }
}
