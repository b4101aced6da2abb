import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create an account and log in.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Username: 3-32 letters, digits, '_' or '.', starting with a letter.") var username: String
    @Option(help: "Password (else PARLEY_PASSWORD, else asked).") var password: String?
    @Option(help: "Email address.") var email: String?
    @Option(help: "Phone number in E.164 form, e.g. +4915112345678.") var phone: String?

    func run() async throws {
        try await userFacing(options) {
            let client = try options.client(for: username)
            let secret = readPassword(password)
            _ = try await client.session.register(
                RegisterRequest(username: username, password: secret, email: email, phone: phone))
            try await client.session.login(username, password: secret)
            try options.setCurrentUser(username)
            print("Registered and logged in as \(username) on \(options.serverURL).")
        }
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log in (by username, email or phone).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Username, email or phone.") var login: String
    @Option(help: "Password (else PARLEY_PASSWORD, else asked).") var password: String?
    @Option(help: "With two-factor login: the app's code or a recovery code (else asked).") var code: String?

    func run() async throws {
        try await userFacing(options) {
            // The user's store is chosen by username, known only once the login answered.
            let client = try options.client(store: ClientStore(path: nil))
            let account: Account
            do {
                account = try await client.session.login(login, password: readPassword(password))
            } catch let required as SecondFactorRequired {
                let given = code ?? readSecret(prompt: "Code from your authenticator app (or a recovery code): ")
                account = try await client.session.completeLogin(required.challenge, code: given)
            }
            try await client.session.copy(to: options.store(for: account.user.username))
            try options.setCurrentUser(account.user.username)
            print("Logged in as \(account.user.username) on \(options.serverURL).")
        }
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log out and end this device's session.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let name = await client.session.currentUser?.username ?? ""
            await client.logout()
            try options.setCurrentUser(nil)
            print("Logged out \(name).")
        }
    }
}

struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show who is logged in.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let account: Account = try await client.session.http(.getMe)
            var line = "\(account.user.username) (id \(account.user.id), nickname \(account.user.nickname))"
            if let email = account.email { line += ", \(email)" + (account.emailVerified == true ? " (verified)" : "") }
            if let phone = account.phone { line += ", \(phone)" + (account.phoneVerified == true ? " (verified)" : "") }
            print(line + " on \(options.serverURL)")
        }
    }
}

struct DeleteAccount: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-account",
        abstract:
            "Delete your account for good: your messages stay as 'Deleted account', your groups pass on, your contacts go."
    )
    @OptionGroup var options: ClientOptions
    @Option(help: "Your password (else asked).") var password: String?
    @Option(help: "With two-factor login: the app's code or a recovery code (else asked).") var code: String?
    @Flag(help: "Do not ask to type the username to confirm.") var yes = false

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let account = try await client.profile.me()
            if !yes {
                print("This deletes \(account.user.username) for good. Type the username to confirm: ", terminator: "")
                guard readLine()?.trimmingCharacters(in: .whitespaces) == account.user.username else {
                    throw CLIError("Not confirmed; nothing was deleted.")
                }
            }
            let password = password ?? readSecret(prompt: "Password: ")
            let twoFactor: TwoFactorStatus = try await client.twoFactor.status()
            let code = twoFactor.enabled ? code ?? readSecret(prompt: "Code from your authenticator app: ") : code
            try await client.deleteAccount(password: password, code: code)
            try options.setCurrentUser(nil)
            print("Deleted \(account.user.username).")
        }
    }
}

struct ChangePassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password", abstract: "Change your password; every other device is signed out.")
    @OptionGroup var options: ClientOptions
    @Option(help: "The current password (else asked).") var current: String?
    @Option(help: "The new password (else asked twice).") var new: String?

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let current = current ?? readSecret(prompt: "Current password: ")
            try await client.profile.changePassword(current: current, new: try readNewPassword(new))
            print("Password changed; your other devices are signed out.")
        }
    }
}
