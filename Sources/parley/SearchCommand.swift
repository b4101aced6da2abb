import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley search`: finds messages, on the server (everything you may read) or, with
/// `--local`, in what this device holds (also offline); with `--contacts`, friends by name
/// (from this device's contact book), with `--groups`, your groups by name or a member's name.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find messages: every word must occur (case, accents and width ignored; Chinese and Japanese too).")
    @OptionGroup var options: ClientOptions
    @Argument(parsing: .remaining, help: "The words to find.") var words: [String]
    @Option(name: .customLong("in"), help: "Only this conversation: a group name, a username or a conversation id.")
    var conversation: String?
    @Option(name: .customLong("from"), help: "Only messages this username sent.") var sender: String?
    @Option(help: "Only messages sent on or after this day (YYYY-MM-DD, local time).") var since: String?
    @Option(help: "Only messages sent before this day (YYYY-MM-DD, local time).") var until: String?
    @Flag(help: "Only files.") var files = false
    @Option(help: "Results per page, 1-100.") var limit = Limits.defaultSearchPageSize
    @Flag(help: "Print every page, not only the first.") var all = false
    @Flag(help: "Search only what this device holds (works offline).") var local = false
    @Flag(help: "Find friends by remark, nickname or username instead of messages.") var contacts = false
    @Flag(help: "Find your groups by their name or a member's name instead of messages.") var groups = false

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            if contacts || groups {
                guard !(contacts && groups) else { throw CLIError("Give --contacts or --groups, not both.") }
                let query = try NameSearchQuery(words.joined(separator: " "), limit: min(limit, NameSearch.maxLimit))
                let lines =
                    contacts
                    ? try await Self.contactLines(query, client: client)
                    : try await Self.groupLines(query, client: client)
                print(
                    lines.isEmpty ? (contacts ? "No friend found." : "No group found.") : lines.joined(separator: "\n"))
                return
            }
            var query = try MessageSearchQuery(words.joined(separator: " "), limit: limit)
            if let conversation { query.conversationId = try await Self.existing(conversation, client: client).id }
            if let sender { query.senderId = try await client.contacts.lookup(username: Self.bare(sender)).id }
            query.since = try since.map(Self.day)
            query.until = try until.map(Self.day)
            if files { query.hasFile = true }
            // Conversation names for the results (what the device does not know yet).
            if !local { await client.catchUp() }
            var count = 0
            while true {
                let page = local ? try client.search.local(query) : try await client.search.server(query)
                for hit in page.hits { print(await Self.line(hit, client: client)) }
                count += page.hits.count
                guard let next = page.nextCursor else { break }
                guard all else {
                    print("… more: add --all")
                    break
                }
                query.cursor = SearchCursor(next)
            }
            if count == 0 { print("No message found.") }
        }
    }

    /// `2026-11-23 12:04 #team @alice: the «needle» here`.
    static func line(_ hit: MessageSearchHit, client: ParleyClient) async -> String {
        let message = hit.message
        var place = "conversation \(message.conversationId)"
        if let summary = try? client.store.conversation(message.conversationId) {
            place = await title(summary, client: client)
        }
        let day = DateFormatter()
        day.dateFormat = "yyyy-MM-dd"
        let when = day.string(from: Date(timeIntervalSince1970: Double(message.sentAt) / 1000))
        let text = marked(message.searchableText ?? "", hit.highlights)
        return "\(when) \(clock(message.sentAt)) \(place) @\(await username(message.senderId, client: client)): \(text)"
    }

    /// `老«张» (@bob, 张伟)`: each friend found, by the name shown, then the others.
    static func contactLines(_ query: NameSearchQuery, client: ParleyClient) async throws -> [String] {
        await client.catchUp()
        return try await client.search.contacts(query).map { hit in
            let user = hit.contact.user
            let username = "@" + marked(user.username, NameField.username, hit.matched)
            let nickname = marked(user.nickname, NameField.nickname, hit.matched)
            guard !hit.contact.remark.isEmpty else { return "\(nickname) (\(username))" }
            return "\(marked(hit.contact.remark, NameField.remark, hit.matched)) (\(username), \(nickname))"
        }
    }

    /// `#«北京»团队 (3 members)`, then a line per member found by name.
    static func groupLines(_ query: NameSearchQuery, client: ParleyClient) async throws -> [String] {
        try await client.search.groups(query).flatMap { hit in
            ["#\(marked(hit.group.name, hit.nameHighlights)) (\(hit.group.memberCount) members)"]
                + hit.members.map { member in
                    let nickname = marked(member.user.nickname, NameField.nickname, member.matched)
                    return "    \(nickname) @\(marked(member.user.username, NameField.username, member.matched))"
                }
        }
    }

    /// `text`, the name called `field`, marked where `matched` says it matched.
    static func marked(_ text: String, _ field: String, _ matched: [NameField]) -> String {
        marked(text, matched.first { $0.field == field }?.highlights ?? [])
    }

    /// `text` with each highlight between « and ».
    static func marked(_ text: String, _ highlights: [TextRange]) -> String {
        let units = Array(text.utf16)
        var result = ""
        var position = 0
        for range in highlights where range.start >= position && range.start + range.length <= units.count {
            result += String(decoding: units[position..<range.start], as: UTF16.self)
            result += "«" + String(decoding: units[range.start..<range.start + range.length], as: UTF16.self) + "»"
            position = range.start + range.length
        }
        return result + String(decoding: units[position...], as: UTF16.self)
    }

    /// A conversation the user already has: a group by id or name, or the direct one with a
    /// username. Searching never opens a conversation.
    static func existing(_ name: String, client: ParleyClient) async throws -> ConversationSummary {
        await client.catchUp()
        let conversations = try client.store.conversations()
        if let id = Int64(name), let found = conversations.first(where: { $0.id == ConversationID(id) }) {
            return found
        }
        if let group = try? await resolveGroup(name, client: client) { return group }
        let peer = try await client.contacts.lookup(username: bare(name))
        guard let direct = conversations.first(where: { $0.kind == .direct && $0.peerId == peer.id }) else {
            throw CLIError("You have no conversation with @\(peer.username).")
        }
        return direct
    }

    static func bare(_ username: String) -> String { username.hasPrefix("@") ? String(username.dropFirst()) : username }

    /// Midnight of `YYYY-MM-DD` in local time, in milliseconds.
    static func day(_ text: String) throws -> Int64 {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.isLenient = false
        guard let date = formatter.date(from: text) else { throw CLIError("'\(text)' is not a day: write YYYY-MM-DD.") }
        return Int64(date.timeIntervalSince1970 * 1000)
    }
}
