import Foundation
import GRDB
import ParleyCore

extension ClientStore {
    /// `parley_search_text(kind, content)`: a message's folded searchable text, or NULL.
    static let searchTextFunction = DatabaseFunction("parley_search_text", argumentCount: 2, pure: true) { values in
        guard let kind = String.fromDatabaseValue(values[0]), let content = String.fromDatabaseValue(values[1]),
            let json = try? JSONText.decodeValue(from: content)
        else { return nil }
        return SearchText.searchableText(kind: MessageKind(rawValue: kind), content: json).map(SearchText.fold)
    }

    private static func databaseValue(_ value: SearchFilterSQL.Value) -> DatabaseValue {
        switch value {
        case .integer(let value): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }

    /// The messages this device holds that match `query`, in the search's order, as a page:
    /// the same rules as the server's search (``SearchText``), over what is stored here, so
    /// it works offline. Messages deleted here or recalled are not found.
    public func searchMessages(_ query: MessageSearchQuery) throws -> MessageSearchPage {
        let found = try writer.read { db in
            var found: [Message] = []
            for pass in query.passes where found.count <= query.limit {
                var filters = SearchFilterSQL(query, row: "")
                filters.add(pass, likes: pass.holds, folded: "folded", id: "id")
                found += try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM messages
                        WHERE hidden = 0 AND folded IS NOT NULL AND \(filters.conditions.joined(separator: " AND "))
                        ORDER BY id DESC LIMIT ?
                        """,
                    arguments: StatementArguments(filters.values.map(Self.databaseValue)) + [
                        query.limit + 1 - found.count
                    ]
                ).map(Self.message)
            }
            return found
        }
        return MessageSearchPage(query, found: found)
    }
}
