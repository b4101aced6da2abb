import Foundation
import Logging
import ParleyCore
import Synchronization

/// The server's sensitive-word filter: the ``WordList`` read from the file given with
/// `--sensitive-words`, checked against usernames, nicknames, signatures, group names and
/// descriptions and group nicknames. Without a
/// file every text passes. ``reload()`` reads the file again (on SIGHUP); a file that
/// cannot be read then keeps the list in use.
final class WordFilter: Sendable {
    private let path: String?
    private let list: Mutex<WordList>

    /// Reads the list at `path`; throws when it cannot be read, so that a node does not
    /// start without the list its operator gave.
    init(path: String) throws {
        self.path = path
        list = Mutex(try Self.read(path))
    }

    /// A filter with no list: every text passes.
    init() {
        path = nil
        list = Mutex(WordList([]))
    }

    /// How many words the list holds.
    var count: Int { list.withLock { $0.count } }

    /// Refuses `text` when it contains a listed word, naming `field` but not the word.
    func check(_ text: String, field: String) throws {
        // Matched on a copy (the arrays are shared, not copied), so checks do not wait on each other.
        guard list.withLock({ $0 }).matches(text) else { return }
        throw ParleyError(.textNotAllowed, "'\(field)' contains a word that is not allowed here.")
    }

    /// Reads the file again and answers how many words it now holds.
    @discardableResult
    func reload() throws -> Int {
        guard let path else { return 0 }
        let fresh = try Self.read(path)
        list.withLock { $0 = fresh }
        return fresh.count
    }

    /// One word or phrase per line, UTF-8; blank lines and lines starting with `#` are skipped.
    private static func read(_ path: String) throws -> WordList {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ParleyError(.unavailable, "Cannot read the sensitive-word list at \(path).")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw ParleyError(.unavailable, "The sensitive-word list at \(path) is not UTF-8.")
        }
        return WordList(
            text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") })
    }
}
