import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley friends`: your friends, the friend requests waiting each way, and who you blocked.
struct Friends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List your friends, the friend requests waiting each way, and who you blocked.")
    @OptionGroup var options: ClientOptions
    @Flag(help: "Also list people you may know, with why.") var suggestions = false

    func run() async throws {
        try await userFacing(options) {
            let contacts = try await options.signedInClient().contacts
            var lines = Self.lines(try await contacts.refresh())
            if suggestions {
                let people = try await contacts.recommendations()
                lines.append(people.isEmpty ? "Nobody to suggest yet." : "People you may know:")
                lines += people.map { "  \($0.user.title) — \($0.reason)" }
            }
            print(lines.joined(separator: "\n"))
        }
    }

    static func lines(_ book: ContactBook) -> [String] {
        var lines = book.friends.isEmpty ? ["No friends yet."] : ["Friends:"]
        for contact in book.friends {
            let groups = book.groups.filter { contact.groups.contains($0.id) }.map(\.name)
            lines.append(
                "  " + (contact.remark.isEmpty ? "" : "\(contact.remark) = ") + contact.user.title
                    + (groups.isEmpty ? "" : " [\(groups.joined(separator: ", "))]"))
        }
        if !book.incoming.isEmpty { lines.append("Requests to you (parley friend accept|reject|ignore <request>):") }
        for request in book.incoming {
            lines.append("  #\(request.id) from \(request.from.title)" + quoted(request.message))
        }
        if !book.ignored.isEmpty { lines.append("Requests you ignored (you may still answer them):") }
        for request in book.ignored {
            lines.append("  #\(request.id) from \(request.from.title)" + quoted(request.message))
        }
        if !book.outgoing.isEmpty { lines.append("Your requests waiting for an answer:") }
        for request in book.outgoing {
            lines.append("  #\(request.id) to \(request.to.title)" + quoted(request.message))
        }
        if !book.blocked.isEmpty { lines.append("Blocked:") }
        for blocked in book.blocked { lines.append("  \(blocked.user.title)") }
        return lines
    }

    private static func quoted(_ message: String) -> String { message.isEmpty ? "" : ": “\(message)”" }
}

/// `parley friend …`: add, answer, remove and rename friends.
struct Friend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add friends, answer friend requests, remove friends and give them remarks.",
        subcommands: [Add.self, Accept.self, Reject.self, Ignore.self, Remove.self, Remark.self, FriendGroups.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ask someone to be your friend.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Their username.") var username: String
        @Option(help: "A message with the request, at most 200 characters.") var message = ""

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let user = try await client.contacts.lookup(username: username)
                let request = try await client.contacts.sendRequest(to: user.id, message: message)
                print(
                    request.status == .accepted
                        ? "You and \(user.title) are friends now."
                        : "Asked \(user.title) (request #\(request.id)); they have until \(Self.date(request.expiresAt)) to answer."
                )
            }
        }

        static func date(_ milliseconds: Int64) -> String {
            Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(date: .abbreviated, time: .omitted)
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept a friend request.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The request's number (#12 or 12) or its sender's username.") var request: String

        func run() async throws {
            try await answer(request, options) { contacts, id in try await contacts.accept(id) }
        }
    }

    struct Reject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Reject a friend request; its sender is told.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The request's number (#12 or 12) or its sender's username.") var request: String

        func run() async throws {
            try await answer(request, options) { contacts, id in try await contacts.reject(id) }
        }
    }

    struct Ignore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a friend request aside without telling its sender.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The request's number (#12 or 12) or its sender's username.") var request: String

        func run() async throws {
            try await answer(request, options) { contacts, id in try await contacts.ignore(id) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End a friendship; your conversation with them is hidden and cleared for you only.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Their username.") var username: String

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let friend = try await Friend.friend(named: username, in: client)
                try await client.contacts.remove(friend.user.id)
                print("\(friend.user.title) is no longer your friend.")
            }
        }
    }

    struct Remark: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give a friend a remark (alias); \"\" removes it.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Their username.") var username: String
        @Argument(help: "At most 64 characters.") var remark: String

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let friend = try await Friend.friend(named: username, in: client)
                let contact = try await client.contacts.setRemark(remark, for: friend.user.id)
                print(
                    contact.remark.isEmpty
                        ? "No remark for \(contact.user.title)." : "\(contact.remark) = \(contact.user.title)")
            }
        }
    }

    /// Answers the incoming request `reference` names (a number, or its sender's username).
    static func answer(
        _ reference: String, _ options: ClientOptions,
        _ act: (Contacts, FriendRequestID) async throws -> FriendRequest
    ) async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let book = try await client.contacts.refresh()
            let number = Int64(reference.hasPrefix("#") ? String(reference.dropFirst()) : reference)
            guard
                let request = (book.incoming + book.ignored).first(where: {
                    $0.id.rawValue == number || $0.from.username.lowercased() == reference.lowercased()
                })
            else { throw CLIError("No friend request \(reference) is waiting for your answer (see parley friends).") }
            let answered = try await act(client.contacts, request.id)
            print("Request #\(answered.id) from \(answered.from.title): \(answered.status).")
        }
    }

    /// The friend called `username`, from the book as the server has it.
    static func friend(named username: String, in client: ParleyClient) async throws -> Contact {
        let book = try await client.contacts.refresh()
        guard let friend = book.friends.first(where: { $0.user.username.lowercased() == username.lowercased() }) else {
            throw CLIError("\(username) is not your friend (see parley friends).")
        }
        return friend
    }
}

/// `parley block`: stops someone from messaging you, adding you or finding you.
struct Block: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Block someone: they can no longer message you, ask to be your friend or find you.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Their username, or their user id (someone who blocked you cannot be found by username).")
    var user: String

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let id: UserID
            if let number = Int64(user) {
                id = UserID(number)
            } else {
                id = try await client.conversations.user(named: user).id
            }
            let blocked = try await client.contacts.block(id)
            print("Blocked \(blocked.user.title).")
        }
    }
}

/// `parley unblock`: lifts a block.
struct Unblock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Unblock someone (a friendship does not come back).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Their username.") var username: String

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let book = try await client.contacts.refresh()
            guard let blocked = book.blocked.first(where: { $0.user.username.lowercased() == username.lowercased() })
            else { throw CLIError("You have not blocked \(username).") }
            try await client.contacts.unblock(blocked.user.id)
            print("Unblocked \(blocked.user.title).")
        }
    }
}

/// `parley friend group …`: your friend groups (tags), and which friends are in them.
struct FriendGroups: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group", abstract: "List, make, rename and delete friend groups, and put friends in them.",
        subcommands: [List.self, Create.self, Rename.self, Delete.self, Put.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your friend groups and who is in each.")
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await userFacing(options) {
                let book = try await options.signedInClient().contacts.refresh()
                if book.groups.isEmpty { print("No friend groups yet.") }
                for group in book.groups {
                    let names = book.friends(in: group.id).map(\.displayName)
                    print("\(group.name): " + (names.isEmpty ? "nobody" : names.joined(separator: ", ")))
                }
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a friend group.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "1-32 characters.") var name: String

        func run() async throws {
            try await userFacing(options) {
                let group = try await options.signedInClient().contacts.createGroup(named: name)
                print("Made the friend group \(group.name).")
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a friend group.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Its name now.") var name: String
        @Argument(help: "Its new name.") var newName: String

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let group = try await FriendGroups.group(named: name, in: client)
                let renamed = try await client.contacts.renameGroup(group.id, to: newName)
                print("\(name) is now called \(renamed.name).")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a friend group; its friends stay friends.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "Its name.") var name: String

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                try await client.contacts.deleteGroup(try await FriendGroups.group(named: name, in: client).id)
                print("Deleted the friend group \(name).")
            }
        }
    }

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put a friend in exactly the groups named (none: out of every group).")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The friend's username.") var username: String
        @Argument(help: "Group names.") var groups: [String] = []

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let friend = try await Friend.friend(named: username, in: client)
                var ids: [FriendGroupID] = []
                for name in groups { ids.append(try await FriendGroups.group(named: name, in: client).id) }
                try await client.contacts.setGroups(ids, for: friend.user.id)
                print(
                    groups.isEmpty
                        ? "\(friend.user.title) is in no friend group."
                        : "\(friend.user.title) is in \(groups.joined(separator: ", ")).")
            }
        }
    }

    /// The user's friend group called `name`, from what the server has.
    static func group(named name: String, in client: ParleyClient) async throws -> FriendGroup {
        guard let group = try await client.contacts.refresh().groups.first(where: { $0.name == name }) else {
            throw CLIError("You have no friend group called \(name) (see parley friend group).")
        }
        return group
    }
}
