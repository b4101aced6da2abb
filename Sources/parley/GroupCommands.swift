import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley group …`: creating and administering groups. Groups are named by name or id, users
/// by username; the server decides who may do what, and its refusals are printed as it words
/// them.
struct Group: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create and manage groups.",
        subcommands: [
            Create.self, Info.self, Members.self, Rename.self, Invite.self, Link.self, Join.self, Requests.self,
            Approve.self, Reject.self, Leave.self, Kick.self, Admin.self, Mute.self, MuteAll.self, AtAll.self,
            Announce.self,
            Describe.self, Nickname.self, Policy.self, Transfer.self, Dissolve.self,
        ])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a group with members.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name.") var name: String
        @Argument(help: "Usernames of the other members.") var members: [String] = []

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let group = try await client.conversations.createGroup(name: name, usernames: members)
                print(
                    "Created #\(name) (id \(group.id)) with \(group.memberCount) member\(group.memberCount == 1 ? "" : "s")."
                )
            }
        }
    }

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a group's profile: owner, joining, announcement, and whether you are still in it.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String

        func run() async throws {
            try await userFacing(options) {
                let (client, summary, snapshot) = try await options.group(group)
                guard let profile = snapshot.profile else {
                    throw CLIError("No profile of #\(summary.name ?? group) yet.")
                }
                print("#\(profile.name) (id \(summary.id))")
                print("Owner: \(await username(profile.ownerId, client: client))")
                print("Members: \(summary.memberCount) of at most \(profile.memberLimit)")
                print("Joining: \(profile.joinPolicy.rawValue)")
                print(profile.muteAll ? "Sending: only the owner and admins (mute-all is on)" : "Sending: every member")
                if !profile.description.isEmpty { print("Description: \(profile.description)") }
                if let announcement = profile.announcement {
                    let author = await username(announcement.updatedBy, client: client)
                    print("Announcement (\(author), \(dateTime(announcement.updatedAt))): \(announcement.text)")
                }
                if let dissolvedAt = profile.dissolvedAt { print("Dissolved on \(dateTime(dissolvedAt)); read-only.") }
                if let removal = snapshot.removal {
                    print(
                        removal.reason == .left
                            ? "You left this group."
                            : "You were removed by \(await username(removal.removedBy, client: client)).")
                }
            }
        }
    }

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a group's members with their roles, group nicknames and mutes.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String

        func run() async throws {
            try await userFacing(options) {
                let (client, _, snapshot) = try await options.group(group)
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                for member in snapshot.members {
                    var line = await username(member.userId, client: client)
                    if let nickname = member.nickname { line += " “\(nickname)”" }
                    line += " — \(member.role.rawValue)"
                    if member.isMuted(at: now), let until = member.mutedUntil { line += ", muted \(untilText(until))" }
                    print(line)
                }
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

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add users to a group directly.", aliases: ["add"])
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "Usernames to add.") var users: [String]

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let summary = try await resolveGroup(group, client: client)
                var ids: [UserID] = []
                for user in users { ids.append(try await client.conversations.user(named: user).id) }
                let added = Set(try await client.groups.add(ids, to: summary.id).members.map(\.userId))
                var named = Set<UserID>()
                let people = zip(users, ids).filter { named.insert($0.1).inserted }  // each once
                let new = people.filter { added.contains($0.1) }.map(\.0)
                let already = people.filter { !added.contains($0.1) }.map(\.0)
                let name = "#\(summary.name ?? group)"
                var lines = new.isEmpty ? [] : ["Added \(new.joined(separator: ", ")) to \(name)."]
                if !already.isEmpty { lines.append("Already in \(name): \(already.joined(separator: ", ")).") }
                print(lines.joined(separator: "\n"))
            }
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an invite link (prints its code), list the links, or revoke one.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Option(help: "How long the link works: 30m, 2h, 1d, 1w (default: until revoked).") var expires: String?
        @Option(help: "How many people may join with it (default: no limit).") var maxUses: Int?
        @Flag(help: "List the links you may see instead.") var list = false
        @Option(help: "Revoke the link with this code instead.") var revoke: String?

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let summary = try await resolveGroup(group, client: client)
                let name = "#\(summary.name ?? group)"
                if let code = revoke {
                    try await client.groups.revokeLink(code, of: summary.id)
                    print("Revoked the invite link \(code) of \(name).")
                } else if list {
                    let links = try await client.groups.links(of: summary.id)
                    if links.isEmpty { print("\(name) has no invite links.") }
                    for link in links { print(await describe(link, client: client)) }
                } else {
                    let link = try await client.groups.createLink(
                        for: summary.id, expiresInSeconds: try expires.map(seconds), maxUses: maxUses)
                    print(link.code)
                    print("Anyone with it can join \(name): parley group join \(link.code)")
                }
            }
        }

        private func describe(_ link: InviteLink, client: ParleyClient) async -> String {
            var parts = ["by \(await username(link.createdBy, client: client))"]
            parts.append("\(link.uses)\(link.maxUses.map { " of \($0)" } ?? "") uses")
            if let revokedAt = link.revokedAt {
                parts.append("revoked \(dateTime(revokedAt))")
            } else {
                parts.append(link.expiresAt.map { "expires \(dateTime($0))" } ?? "never expires")
            }
            return "\(link.code)  " + parts.joined(separator: ", ")
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a group with an invite code, or ask to when it wants approval.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The invite code.") var code: String
        @Argument(parsing: .remaining, help: "A note to the admins, when the group wants approval.")
        var message: [String] = []

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let note = message.joined(separator: " ")
                // Joining first: a member holding a spent link is simply in, which a preview would refuse.
                let outcome = try await client.groups.join(code: code, message: note.isEmpty ? nil : note)
                if let request = outcome.request {
                    let name = (try? await client.groups.preview(code: code).name) ?? "group \(request.conversationId)"
                    print("Asked to join #\(name); the owner or an admin will answer.")
                } else if let detail = outcome.conversation {
                    print("Joined #\(detail.conversation.name ?? "group \(detail.conversation.id)").")
                }
            }
        }
    }

    struct Requests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the pending requests to join a group (owner and admins).")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let summary = try await resolveGroup(group, client: client)
                let requests = try await client.groups.joinRequests(of: summary.id)
                if requests.isEmpty { print("No pending requests to join #\(summary.name ?? group).") }
                for request in requests {
                    let note = request.message.isEmpty ? "" : " — “\(request.message)”"
                    print("\(await username(request.userId, client: client))\(note) (\(dateTime(request.createdAt)))")
                }
            }
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let someone who asked join a group.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "The username of who asked.") var user: String

        func run() async throws {
            try await options.resolveRequest(group: group, user: user, approve: true)
        }
    }

    struct Reject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn down a request to join a group.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "The username of who asked.") var user: String

        func run() async throws {
            try await options.resolveRequest(group: group, user: user, approve: false)
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Leave a group; its history stays here, read-only.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let summary = try await resolveGroup(group, client: client)
                try await client.groups.leave(summary.id)
                print("You left #\(summary.name ?? group).")
            }
        }
    }

    struct Kick: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a member from a group.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "The member's username.") var user: String

        func run() async throws {
            try await options.changeMember(group: group, user: user) { client, summary, member in
                try await client.groups.remove(member.id, from: summary.id)
                return "Removed \(member.username) from #\(summary.name ?? group)."
            }
        }
    }

    struct Admin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a member an admin, or (--remove) not.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "The member's username.") var user: String
        @Flag(help: "Make the admin a plain member again.") var remove = false

        func run() async throws {
            try await options.changeMember(group: group, user: user) { client, summary, member in
                try await client.groups.setRole(remove ? .member : .admin, of: member.id, in: summary.id)
                return remove
                    ? "\(member.username) is no longer an admin of #\(summary.name ?? group)."
                    : "\(member.username) is now an admin of #\(summary.name ?? group)."
            }
        }
    }

    struct Mute: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop a member from sending for a while.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "The member's username.") var user: String
        @Argument(help: "For how long: 10m, 2h, 1d, 1w, forever; or off to lift the mute.") var duration: String

        func run() async throws {
            try await options.changeMember(group: group, user: user) { client, summary, member in
                let name = "#\(summary.name ?? group)"
                if duration == "off" {
                    try await client.groups.unmute(member.id, in: summary.id)
                    return "\(member.username) may send in \(name) again."
                }
                let until =
                    try duration == "forever"
                    ? Limits.mutedUntilLifted : Int64(Date().timeIntervalSince1970 * 1000) + seconds(duration) * 1000
                try await client.groups.mute(member.id, in: summary.id, until: until)
                return "Muted \(member.username) in \(name) \(untilText(until))."
            }
        }
    }

    struct MuteAll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mute-all", abstract: "Let only the owner and admins send (on), or everyone again (off).")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "on or off.") var state: Switch

        enum Switch: String, ExpressibleByArgument, CaseIterable {
            case on, off
        }

        func run() async throws {
            try await options.updateGroup(group, UpdateGroupRequest(muteAll: state == .on)) { name in
                state == .on
                    ? "Only the owner and admins may send in \(name) now." : "Everyone may send in \(name) again."
            }
        }
    }

    struct AtAll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "at-all", abstract: "Let every member mention @all (everyone), or only the owner and admins.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "everyone or admins.") var who: Who

        enum Who: String, ExpressibleByArgument, CaseIterable {
            case everyone, admins
        }

        func run() async throws {
            try await options.updateGroup(group, UpdateGroupRequest(everyoneMayMentionAll: who == .everyone)) { name in
                who == .everyone
                    ? "Every member may mention @all in \(name) now."
                    : "Only the owner and admins may mention @all in \(name) now."
            }
        }
    }

    struct Announce: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Post the group's announcement (every member is told), or clear it with --clear.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Flag(help: "Remove the announcement.") var clear = false
        @Argument(parsing: .remaining, help: "The announcement.") var text: [String] = []

        func run() async throws {
            let announcement = clear ? "" : text.joined(separator: " ")
            guard clear || !announcement.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw CLIError("Nothing to announce; to remove the announcement, use --clear.")
            }
            try await options.updateGroup(group, UpdateGroupRequest(announcement: announcement)) { name in
                clear ? "Cleared the announcement of \(name)." : "Posted the announcement in \(name)."
            }
        }
    }

    struct Describe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the group's description (owner and admins), or clear it with no text.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(parsing: .remaining, help: "The description.") var text: [String] = []

        func run() async throws {
            let description = text.joined(separator: " ")
            try await options.updateGroup(group, UpdateGroupRequest(description: description)) { name in
                description.isEmpty ? "Cleared the description of \(name)." : "Described \(name)."
            }
        }
    }

    struct Nickname: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set your own nickname in a group, or remove it with no name.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(parsing: .remaining, help: "The nickname.") var name: [String] = []

        func run() async throws {
            let nickname = name.joined(separator: " ")
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let summary = try await resolveGroup(group, client: client)
                try await client.groups.setNickname(nickname, in: summary.id)
                let title = "#\(summary.name ?? group)"
                print(nickname.isEmpty ? "Removed your nickname in \(title)." : "You are \(nickname) in \(title).")
            }
        }
    }

    struct Policy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Choose who may bring people into a group.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(
            help: """
                open: any member invites or shares a link; approval: a link files a request that the owner \
                or an admin approves; invite-only: only the owner and admins invite.
                """)
        var policy: String

        func run() async throws {
            guard let joinPolicy = JoinPolicy(rawValue: policy.replacingOccurrences(of: "-", with: "_")) else {
                throw CLIError("'\(policy)' is not a join policy: use open, approval or invite-only.")
            }
            try await options.updateGroup(group, UpdateGroupRequest(joinPolicy: joinPolicy)) { name in
                switch joinPolicy {
                case .open: "Any member of \(name) may bring people in now."
                case .approval: "Joining \(name) now needs the approval of the owner or an admin."
                case .inviteOnly: "Only the owner and admins of \(name) may bring people in now."
                }
            }
        }
    }

    struct Transfer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hand a group you own to a member; you become an admin.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Argument(help: "The member's username.") var user: String

        func run() async throws {
            try await options.changeMember(group: group, user: user) { client, summary, member in
                try await client.groups.transfer(summary.id, to: member.id)
                return "\(member.username) now owns #\(summary.name ?? group); you are an admin."
            }
        }
    }

    struct Dissolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a group you own read-only for every member, for good.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The group's name or conversation id.") var group: String
        @Flag(help: "Confirm: there is no undoing it.") var yes = false

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                let summary = try await resolveGroup(group, client: client)
                let name = "#\(summary.name ?? group)"
                guard yes else {
                    throw CLIError("Dissolving makes \(name) read-only for every member, for good; add --yes to do it.")
                }
                try await client.groups.dissolve(summary.id)
                print("Dissolved \(name); its history stays, read-only.")
            }
        }
    }
}

extension ClientOptions {
    /// A group with its local state, its member list fetched first when this device does not
    /// hold it whole (a group the user left shows as it was then).
    func group(_ name: String) async throws -> (ParleyClient, ConversationSummary, GroupSnapshot) {
        let client = try await signedInClient()
        let summary = try await resolveGroup(name, client: client)
        let me = await client.session.currentUser?.id
        var snapshot = try client.store.group(summary.id, viewer: me)
        if !snapshot.membersAreComplete, !snapshot.hasLeft {
            try await client.groups.refresh(summary.id)
            snapshot = try client.store.group(summary.id, viewer: me)
        }
        return (client, try client.store.conversation(summary.id) ?? summary, snapshot)
    }

    /// Runs `change` on one member of a group, both named as typed, and prints what it says.
    func changeMember(
        group: String, user: String,
        _ change: (ParleyClient, ConversationSummary, User) async throws -> String
    ) async throws {
        try await userFacing(self) {
            let client = try await signedInClient()
            let summary = try await resolveGroup(group, client: client)
            print(try await change(client, summary, try await client.conversations.user(named: user)))
        }
    }

    /// Changes a group's profile and prints what `done` says about the group's `#name`.
    func updateGroup(_ group: String, _ changes: UpdateGroupRequest, done: (String) -> String) async throws {
        try await userFacing(self) {
            let client = try await signedInClient()
            let summary = try await resolveGroup(group, client: client)
            try await client.groups.update(summary.id, changes)
            print(done("#\(summary.name ?? group)"))
        }
    }

    /// Approves or rejects a user's request to join a group.
    func resolveRequest(group: String, user: String, approve: Bool) async throws {
        try await changeMember(group: group, user: user) { client, summary, requester in
            try await client.groups.resolve(requestOf: requester.id, in: summary.id, approve: approve)
            let name = "#\(summary.name ?? group)"
            return approve
                ? "\(requester.username) joined \(name)."
                : "Turned down \(requester.username)'s request to join \(name)."
        }
    }
}

/// Seconds in a span written as a number and a unit: `30s`, `10m`, `2h`, `1d` or `1w`.
func seconds(_ span: String) throws -> Int64 {
    let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
    guard let unit = span.last.flatMap({ units[$0] }), let count = Int64(span.dropLast()), count > 0,
        case (let total, let overflow) = count.multipliedReportingOverflow(by: unit), !overflow,
        total <= Int64(Int32.max)
    else {
        throw CLIError("'\(span)' is not a length of time: write a number and s, m, h, d or w, such as 10m or 2h.")
    }
    return total
}

/// `until 2026-11-22 14:05`, or `until lifted` for a mute without an end.
func untilText(_ until: Int64) -> String {
    until >= Limits.mutedUntilLifted ? "until lifted" : "until \(dateTime(until))"
}

/// `2026-11-22 14:05` for a time in ms since the epoch.
func dateTime(_ milliseconds: Int64) -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
}
