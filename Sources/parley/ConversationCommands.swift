import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

struct Conversations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List conversations: pinned first, then most recent first; with unread counts ([@me] when a message mentions you), mutes and drafts (hidden ones are left out)."
    )
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            await client.catchUp()
            let conversations = try client.conversations.list.current()
            if conversations.isEmpty { print("No conversations yet. Try 'parley send <user> <text>'.") }
            for conversation in conversations {
                let name = await title(conversation, client: client)
                let unread = conversation.unreadCount > 0 ? " (\(conversation.unreadCount) unread)" : ""
                let mentioned = conversation.unreadMentions > 0 ? " [@me]" : ""
                let left = try client.store.hasLeft(conversation.id) ? " (left)" : ""
                let pinned = conversation.isPinned ? "📌 " : ""
                let muted = conversation.isMuted ? " (muted)" : ""
                var last = ""
                if let message = conversation.lastMessage {
                    last = " — \(await render(message.typedContent, client: client))"
                }
                let draft = conversation.draft.isEmpty ? "" : " — draft: \(oneLine(conversation.draft))"
                print("\(conversation.id)\t\(pinned)\(name)\(left)\(muted)\(unread)\(mentioned)\(last)\(draft)")
            }
        }
    }
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the latest messages of a conversation.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    @Option(help: "How many messages.") var limit = 20

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let messages = try await client.sync.messages(
                in: summary.id, before: nil, limit: max(1, min(limit, Limits.maxPageSize)))
            print(
                "\(await title(summary, client: client)) — \(summary.maxSeq) message\(summary.maxSeq == 1 ? "" : "s")")
            for message in messages {
                let sender = message.kind == .system ? "" : "\(await username(message.senderId, client: client)): "
                print("[\(clock(message.sentAt)) #\(message.seq)] \(sender)\(await render(message, client: client))")
            }
        }
    }
}

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Send a text message to a user or group; @username in it mentions them, @all everyone (where you may)."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    @Argument(parsing: .remaining, help: "The text.") var text: [String]

    func run() async throws {
        try await userFacing(options) {
            let message = text.joined(separator: " ")
            guard !message.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError("Nothing to send.") }
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let handle = try await client.sendQueue.send(
                text: message, mentions: await mentions(in: message, conversation: summary.id, client: client),
                to: summary.id)
            await client.sendQueue.flush()
            switch await handle.state {
            case .sent(let seq): print("Sent to \(await title(summary, client: client)) (#\(seq)).")
            case .failed(let reason, _): throw CLIError("Not sent: \(reason)")
            default: print("Queued: the server is unreachable; it will be sent the next time parley connects.")
            }
        }
    }
}

/// A text on one line: its line breaks and tabs as spaces.
func oneLine(_ text: String) -> String {
    String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
}
