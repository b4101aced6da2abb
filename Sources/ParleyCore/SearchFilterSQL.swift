/// A search's filters as SQL, written once for the server's two backends and the SDK's
/// store: ``conditions`` on the `messages` row named `row` (each value a `?`, in the order
/// of ``values``). The terms and where a page starts are each backend's own (an index, and
/// ``MessageSearchQuery/passes``).
public struct SearchFilterSQL: Sendable {
    /// A value a condition compares with.
    public enum Value: Sendable, Hashable {
        case integer(Int64)
        case text(String)
    }

    public private(set) var conditions: [String] = []
    public private(set) var values: [Value] = []

    public init(_ query: MessageSearchQuery, row: String) {
        let column = { (name: String) in row.isEmpty ? name : "\(row).\(name)" }
        func add(_ condition: String, _ value: Value) {
            conditions.append(condition)
            values.append(value)
        }
        if let conversationId = query.conversationId {
            add("\(column("conversation_id")) = ?", .integer(conversationId.rawValue))
        }
        if let senderId = query.senderId { add("\(column("sender_id")) = ?", .integer(senderId.rawValue)) }
        if let since = query.since { add("\(column("sent_at")) >= ?", .integer(since)) }
        if let until = query.until { add("\(column("sent_at")) < ?", .integer(until)) }
        if let kind = query.kind { add("\(column("kind")) = ?", .text(kind.rawValue)) }
        if let hasFile = query.hasFile {
            let kinds = MessageKind.withFiles.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            conditions.append("\(column("kind")) \(hasFile ? "IN" : "NOT IN") (\(kinds))")
        }
    }

    /// Adds the conditions of one of the query's passes: the folded text in column `folded`
    /// holds each string of `likes` (the pass's ``SearchPass/holds``, less what an index
    /// already matched) and not ``SearchPass/lacks``, and column `id` is below
    /// ``SearchPass/before``.
    public mutating func add(_ pass: SearchPass, likes: [String], folded: String, id: String) {
        for string in likes {
            conditions.append("\(folded) LIKE ? ESCAPE '\\'")
            values.append(.text(SearchText.likePattern(string)))
        }
        if let lacks = pass.lacks {
            conditions.append("\(folded) NOT LIKE ? ESCAPE '\\'")
            values.append(.text(SearchText.likePattern(lacks)))
        }
        if let before = pass.before {
            conditions.append("\(id) < ?")
            values.append(.integer(before.rawValue))
        }
    }

    /// `sql` with its `?` numbered `$first`, `$first + 1`, … (PostgreSQL's placeholders).
    public static func numbered(_ sql: String, from first: Int) -> String {
        var number = first
        var result = ""
        for character in sql {
            if character == "?" {
                result += "$\(number)"
                number += 1
            } else {
                result.append(character)
            }
        }
        return result
    }
}
