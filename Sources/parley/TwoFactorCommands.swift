import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley two-factor`: two-factor login with an authenticator app.
struct TwoFactorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "two-factor", abstract: "Two-factor login with an authenticator app (TOTP).",
        subcommands: [Status.self, Enable.self, Confirm.self, Disable.self], defaultSubcommand: Status.self)

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say whether two-factor login is on.")
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await userFacing(options) {
                let status = try await options.signedInClient().twoFactor.status()
                print(
                    status.enabled
                        ? "Two-factor login is on; \(status.recoveryCodesLeft) recovery codes left."
                        : "Two-factor login is off. Turn it on with 'parley two-factor enable'.")
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a new secret for your authenticator app; 'parley two-factor confirm <code>' turns it on.")
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await userFacing(options) {
                let setup = try await options.signedInClient().twoFactor.setUp()
                print("Add this account to your authenticator app with the secret \(setup.secret)")
                print("or the link \(setup.uri)")
                print("Then run 'parley two-factor confirm <the code it shows>'.")
            }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn two-factor login on with the code your app shows; prints your recovery codes.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The six-digit code the app shows now.") var code: String

        func run() async throws {
            try await userFacing(options) {
                let codes = try await options.signedInClient().twoFactor.confirm(code: code)
                print("Two-factor login is on. Keep these recovery codes somewhere safe; each works once:")
                for code in codes.recoveryCodes { print("  \(code)") }
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn two-factor login off, with the code your app shows or a recovery code.")
        @OptionGroup var options: ClientOptions
        @Argument(help: "The app's code or a recovery code.") var code: String

        func run() async throws {
            try await userFacing(options) {
                try await options.signedInClient().twoFactor.disable(code: code)
                print("Two-factor login is off.")
            }
        }
    }
}
