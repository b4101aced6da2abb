import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// A command typed in `parley chat` that acts on message #N: `/reply N text`, `/edit N text`,
/// `/recall N`, `/forward N <conversation>`, `/delete N`.
struct ChatLineCommand {
    enum Verb: String {
        case reply, edit, recall, forward, delete
    }

    let verb: Verb
    let seq: Int64
    /// The text of a reply or an edit, the target of a forward.
    let argument: String

    /// Reads a line such as `/reply 5 sounds good`; nil when it is not one of these commands.
    init?(_ line: String) {
        let words = line.dropFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard words.count >= 2, let verb = Verb(rawValue: String(words[0])), let seq = Int64(words[1]) else {
            return nil
        }
        self.verb = verb
        self.seq = seq
        argument = words.count > 2 ? String(words[2]).trimmingCharacters(in: .whitespaces) : ""
    }

    func perform(in context: ChatContext, client: ParleyClient) async throws {
        guard let item = await context.items.first(where: { $0.seq == seq }) else {
            throw CLIError("No message #\(seq) is shown here.")
        }
        if item.isRecalled, verb != .delete { throw CLIError("#\(seq) was recalled.") }
        switch verb {
        case .reply:
            guard !argument.isEmpty else { throw CLIError("Usage: /reply N text") }
            try await context.sendReply(
                argument, to: item,
                mentions: await mentions(in: argument, conversation: context.conversationId, client: client))
        case .edit:
            guard !argument.isEmpty else { throw CLIError("Usage: /edit N text") }
            try await context.edit(item, text: argument)
        case .recall:
            try await context.recall(item)
        case .forward:
            guard !argument.isEmpty else { throw CLIError("Usage: /forward N <conversation id, group or @username>") }
            let target = try await resolveConversation(argument, client: client)
            try await context.forward([item], to: [target.id])
            printNow("  ➜ #\(seq) forwarded to \(await title(target, client: client))")
        case .delete:
            try await context.delete([item])
        }
    }
}

/// `parley recall <conversation> <seq>`: recalls one message for everyone.
struct Recall: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Recall a message for everyone: your own within the recall window; a group's owner or admin also others'.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    @Argument(help: "The message's number (as 'parley history' shows it: [12:04 #5]).") var seq: Int64

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let message = try await messageNumbered(seq, in: summary, client: client)
            try await client.messages.recall(message)
            print("Recalled #\(seq) in \(await title(summary, client: client)).")
        }
    }
}

/// Message #`seq` of a conversation, from the device or the server.
func messageNumbered(_ seq: Int64, in summary: ConversationSummary, client: ParleyClient) async throws -> Message {
    let page = try await client.sync.messages(in: summary.id, before: seq + 1, limit: 1)
    guard let message = page.first(where: { $0.seq == seq }) else {
        throw CLIError("There is no message #\(seq) in \(await title(summary, client: client)).")
    }
    return message
}

/// `parley clear <conversation>`: clears a conversation's history for the user.
struct Clear: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Clear a conversation's history for yourself, on all your devices (others keep theirs).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            try await client.messages.clearHistory(in: summary.id)
            print("Cleared the history of \(await title(summary, client: client)) for you.")
        }
    }
}

/// Whom a text typed in a conversation mentions: each `@username` that names a user
/// (trailing punctuation aside), and everyone for `@all` when the user may mention everyone
/// there (``mayMentionEveryone(in:client:)``). Other words starting with `@`, and `@all`
/// typed by anyone else, are left as text: the server would refuse the whole message.
func mentions(in text: String, conversation: ConversationID, client: ParleyClient) async -> Mentions {
    var mentions = Mentions()
    var everyoneAllowed: Bool?
    for word in text.split(whereSeparator: \.isWhitespace) where word.hasPrefix("@") {
        let name = String(word.dropFirst()).trimmingCharacters(in: .punctuationCharacters)
        if name == "all" {
            if everyoneAllowed == nil { everyoneAllowed = await mayMentionEveryone(in: conversation, client: client) }
            mentions.all = everyoneAllowed == true
        } else if let user = try? await client.conversations.user(named: name), !mentions.userIds.contains(user.id) {
            mentions.userIds.append(user.id)
        }
    }
    return mentions
}

/// Whether the user may mention everyone in a conversation: in a group, as its owner or an
/// admin, or as anyone when the group allows it (the member list is fetched when this device
/// does not hold it whole).
func mayMentionEveryone(in conversationId: ConversationID, client: ParleyClient) async -> Bool {
    guard let me = await client.session.currentUser?.id,
        (try? client.store.conversation(conversationId))??.kind == .group
    else { return false }
    func role() -> MemberRole? {
        try? client.store.group(conversationId, viewer: me).members.first { $0.userId == me }?.role
    }
    let known = (try? client.store.group(conversationId, viewer: me).membersAreComplete) ?? false
    if !known || role() == nil { _ = try? await client.groups.refresh(conversationId) }
    guard let role = role() else { return false }
    return role != .member
        || (try? client.store.group(conversationId, viewer: me).profile?.everyoneMayMentionAll) == true
}
