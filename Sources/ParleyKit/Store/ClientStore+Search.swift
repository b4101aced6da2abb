import Foundation
import GRDB
import ParleyCore

extension ClientStore {
    /// `parley_search_text(kind, content)`: a message's folded searchable text, or NULL.
    static let searchTextFunction = DatabaseFunction("parley_search_text", argumentCount: 2, pure: true) { values in
        guard let kind = String.fromDatabaseValue(values[0]), let content = String.fromDatabaseValue(values[1]),
            let json = try? JSONText.decode(JSONValue.self, from: content)
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
        var conditions = ["hidden = 0", "folded IS NOT NULL"]
        var arguments: StatementArguments = [SearchText.likePattern(query.phrase)]
        for term in query.terms {
            conditions.append("folded LIKE ? ESCAPE '\\'")
            arguments += [SearchText.likePattern(term)]
        }
        let filters = SearchFilterSQL(query, row: "")
        conditions += filters.conditions
        arguments += StatementArguments(filters.values.map(Self.databaseValue))
        var after = ""
        if let cursor = filters.cursor {
            after = "WHERE " + cursor.condition
            arguments += StatementArguments(cursor.values.map(Self.databaseValue))
        }
        arguments += [query.limit + 1]
        let found = try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM (
                        SELECT *, CASE WHEN folded LIKE ? ESCAPE '\\' THEN 0 ELSE 1 END AS tier FROM messages
                        WHERE \(conditions.joined(separator: " AND "))
                    ) \(after)
                    ORDER BY tier, id DESC LIMIT ?
                    """,
                arguments: arguments
            ).map(Self.message)
        }
        return MessageSearchPage(query, found: found)
    }
}
