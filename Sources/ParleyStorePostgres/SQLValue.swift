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
}

extension PostgresConnection {
    /// Runs `sql` with `$1…` placeholders bound to `values` and collects the rows.
    @discardableResult
    func rows(_ sql: String, _ values: [SQLValue] = [], logger: Logger) async throws -> [PostgresRandomAccessRow] {
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
        for try await row in try await query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
            result.append(row.makeRandomAccess())
        }
        return result
    }

    /// The first column of the first row.
    func scalar<T: PostgresDecodable>(_ type: T.Type, _ sql: String, _ values: [SQLValue] = [], logger: Logger)
        async throws -> T?
    {
        try await rows(sql, values, logger: logger).first.map { try $0[0].decode(T.self) }
    }
}

extension PostgresRandomAccessRow {
    func int(_ column: String) throws -> Int64 { try self[column].decode(Int64.self) }
    func optionalInt(_ column: String) throws -> Int64? { try self[column].decode(Int64?.self) }
    func text(_ column: String) throws -> String { try self[column].decode(String.self) }
    func optionalText(_ column: String) throws -> String? { try self[column].decode(String?.self) }
    func bool(_ column: String) throws -> Bool { try self[column].decode(Bool.self) }
}
