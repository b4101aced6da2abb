import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

struct Conversations: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List conversations, most recent first, with unread counts.")
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
                let last = conversation.lastMessage.map { " — \(render($0.typedContent))" } ?? ""
                print("\(conversation.id)\t\(name)\(unread)\(last)")
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
            print("\(await title(summary, client: client)) — \(summary.maxSeq) messages")
            for message in messages {
                let sender =
                    (try? await client.conversations.user(message.senderId).username) ?? "user \(message.senderId)"
                print("[\(clock(message.sentAt))] \(sender): \(render(message.typedContent))")
            }
        }
    }
}

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send a text message to a user or group.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    @Argument(parsing: .remaining, help: "The text.") var text: [String]

    func run() async throws {
        try await userFacing(options) {
            let message = text.joined(separator: " ")
            guard !message.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError("Nothing to send.") }
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let handle = try await client.sendQueue.send(text: message, to: summary.id)
            await client.sendQueue.flush()
            switch await handle.state {
            case .sent(let seq): print("Sent to \(await title(summary, client: client)) (#\(seq)).")
            case .failed(let reason, _): throw CLIError("Not sent: \(reason)")
            default: print("Queued: the server is unreachable; it will be sent the next time parley connects.")
            }
        }
    }
}

struct Group: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage groups.", subcommands: [Create.self, Rename.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a group with members.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name.") var name: String
        @Argument(help: "Usernames of the other members.") var members: [String] = []

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let group = try await client.conversations.createGroup(name: name, usernames: members)
                print("Created #\(name) (id \(group.id)) with \(group.memberCount) members.")
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a group a new name; every member sees it.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "The new name (1 to \(Limits.maxGroupNameLength) characters).") var name: String

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let summary = try await resolveGroup(group, client: client)
                let renamed = try await client.conversations.rename(summary.id, to: name)
                print("Renamed #\(summary.name ?? group) to #\(renamed.name ?? name).")
            }
        }
    }
}
