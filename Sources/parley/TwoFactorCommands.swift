import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit
import ParleyUI

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
                print("Scan this with your authenticator app:")
                if let code = QRCode(setup.uri) {
                    for line in code.terminalLines(colored: isatty(STDOUT_FILENO) == 1) { print(line) }
                }
                print("or add the account with the secret \(setup.secret)")
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

extension QRCode {
    /// The code in half-block characters, two rows of modules per line, with the four-module
    /// light border scanners need. `colored` paints black on white whatever the terminal's
    /// colours (a light-on-dark code is not read by every scanner); plain text draws dark
    /// modules as blocks, for a light background.
    func terminalLines(colored: Bool) -> [String] {
        let border = 4
        let span = -border..<size + border
        func dark(_ row: Int, _ column: Int) -> Bool {
            (0..<size).contains(row) && (0..<size).contains(column) && isDark(row: row, column: column)
        }
        return stride(from: -border, to: size + border, by: 2).map { row in
            let cells = span.map { column -> String in
                switch (dark(row, column), dark(row + 1, column)) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            }.joined()
            return colored ? "\u{1B}[30;47m" + cells + "\u{1B}[0m" : cells
        }
    }
}
