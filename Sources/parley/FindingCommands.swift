import ArgumentParser
import ParleyCore
import ParleyKit

/// `parley search-user`: finds people by nickname, or exactly by username, email or phone.
struct SearchUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search-user",
        abstract: "Find people by nickname, or exactly by --username, --email or --phone.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Part of a nickname (case and full width ignored).") var query: String?
    @Option(help: "An exact username.") var username: String?
    @Option(help: "An exact email address.") var email: String?
    @Option(help: "An exact phone number, e.g. +8613800138000.") var phone: String?
    @Option(help: "Results per page, 1-50.") var limit: Int?
    @Flag(help: "Print every page, not only the first.") var all = false

    func validate() throws {
        guard [query, username, email, phone].compactMap({ $0 }).count == 1 else {
            throw ValidationError("Give a nickname to search for, or exactly one of --username, --email, --phone.")
        }
    }

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let contacts = client.contacts
            if let username {
                print(Self.line(try await contacts.lookup(username: username)))
            } else if let email {
                print(Self.line(try await contacts.lookup(email: email)))
            } else if let phone {
                print(Self.line(try await contacts.lookup(phone: phone)))
            } else if let query {
                var cursor: String?
                var count = 0
                repeat {
                    let page = try await contacts.search(query, cursor: cursor, limit: limit)
                    for user in page.users { print(Self.line(user)) }
                    count += page.users.count
                    cursor = page.nextCursor
                    if cursor != nil, !all { print("… more: add --all") }
                } while cursor != nil && all
                if count == 0 { print("Nobody found.") }
            }
        }
    }

    static func line(_ user: User) -> String {
        var line = user.title
        if !user.signature.isEmpty { line += " — \(user.signature)" }
        return line
    }
}

/// `parley privacy`: shows or changes who may find you, and how.
struct Privacy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Show who may find you by username, email, phone and nickname, who may add you, who may message you and who sees you online, or change it."
    )
    @OptionGroup var options: ClientOptions
    @Option(help: "everyone or nobody.") var findByUsername: Discoverability?
    @Option(help: "everyone or nobody.") var findByEmail: Discoverability?
    @Option(help: "everyone or nobody.") var findByPhone: Discoverability?
    @Option(help: "everyone or nobody.") var findByNickname: Discoverability?
    @Option(help: "What a friend request does: anyone (friends at once), approval (you answer) or nobody (refused).")
    var addMe: AddPolicy?
    @Option(help: "Who may send you direct messages: everyone or friends.") var messageFrom: MessagePolicy?
    @Option(help: "Who sees whether you are online and when you were last seen: everyone, contacts or nobody.")
    var presence: PresenceVisibility?

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let update = UpdatePrivacyRequest(
                findByUsername: findByUsername, findByEmail: findByEmail, findByPhone: findByPhone,
                findByNickname: findByNickname, addMe: addMe, messageFrom: messageFrom, presence: presence)
            let settings =
                update == UpdatePrivacyRequest()
                ? try await client.profile.privacy() : try await client.profile.updatePrivacy(update)
            print(
                """
                find by username: \(settings.findByUsername.rawValue)
                find by email:    \(settings.findByEmail.rawValue)
                find by phone:    \(settings.findByPhone.rawValue)
                find by nickname: \(settings.findByNickname.rawValue)
                add me:           \(settings.addMe.rawValue)
                message from:     \(settings.messageFrom.rawValue)
                presence:         \(settings.presence.rawValue)
                """)
        }
    }
}

/// A setting whose values the server knows, given on the command line by name.
protocol SettingValue: OpenStringValue, ExpressibleByArgument {
    static var known: [Self] { get }
}

extension SettingValue {
    public init?(argument: String) {
        guard Self.known.contains(Self(rawValue: argument)) else { return nil }
        self.init(rawValue: argument)
    }

    public static var allValueStrings: [String] { known.map(\.rawValue) }
}

extension Discoverability: SettingValue {}
extension AddPolicy: SettingValue {}
extension MessagePolicy: SettingValue {}
extension PresenceVisibility: SettingValue {}
