import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley profile`: shows a profile (yours, or someone's by username) and changes yours.
struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile", abstract: "Show a profile, or change yours.",
        subcommands: [Show.self, Change.self], defaultSubcommand: Show.self)

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show your profile, or another user's.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "A username; yours when left out.") var username: String?

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                if let username {
                    print(Self.lines(try await client.conversations.user(named: username)).joined(separator: "\n"))
                } else {
                    let account = try await client.profile.me()
                    var lines = Self.lines(account.user)
                    if let email = account.email { lines.append("email:     \(email)") }
                    if let phone = account.phone { lines.append("phone:     \(phone)") }
                    print(lines.joined(separator: "\n"))
                }
            }
        }

        static func lines(_ user: User) -> [String] {
            var lines = [user.title]
            if !user.signature.isEmpty { lines.append("signature: \(user.signature)") }
            if let gender = user.gender { lines.append("gender:    \(gender)") }
            if let birthday = user.birthday { lines.append("birthday:  \(birthday)") }
            if let region = user.region { lines.append("region:    \(region)") }
            if let avatar = user.avatar { lines.append("avatar:    \(avatar)") }
            return lines
        }
    }

    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change your profile; an empty value (\"\") removes a gender, birthday, region or avatar.")
        @OptionGroup var options: ClientOptions
        @Option(help: "1-32 characters.") var nickname: String?
        @Option(help: "At most 140 characters.") var signature: String?
        @Option(help: "female, male or other.") var gender: String?
        @Option(help: "YYYY-MM-DD.") var birthday: String?
        @Option(help: "An ISO 3166 code: a country (CN) or a country and a subdivision (CN-GD).") var region: String?
        @Option(help: "An image file to upload (or found by hash), or the id of an image already uploaded.")
        var avatar: String?

        var update: ProfileUpdate {
            ProfileUpdate(
                nickname: nickname, signature: signature, avatar: avatar, gender: gender, birthday: birthday,
                region: region)
        }

        func validate() throws {
            guard update != ProfileUpdate() else {
                throw ValidationError(
                    "Give at least one of --nickname, --signature, --gender, --birthday, --region, --avatar.")
            }
        }

        func run() async throws {
            try await userFacing(options) {
                let client = try await options.signedInClient()
                var update = update
                if let avatar, !avatar.isEmpty, FileManager.default.isReadableFile(atPath: avatar) {
                    let image = try OutgoingFile(path: avatar, kind: .image)
                    update.avatar = try await client.files.upload(
                        fileAt: image.path, kind: .image, mimeType: image.mimeType
                    ).fileId
                }
                let account = try await client.profile.update(update)
                print((["Profile saved:"] + Show.lines(account.user)).joined(separator: "\n"))
            }
        }
    }
}

extension User {
    /// How the CLI names a user: `Nickname (@username, id 7)`.
    var title: String { "\(nickname) (@\(username), id \(id))" }
}
