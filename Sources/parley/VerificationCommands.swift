import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// Which address a code is about.
enum AddressKind: String, ExpressibleByArgument, CaseIterable {
    case email, phone
}

/// Sends a code (unless `given`), then uses the one the user types or gave: the two steps
/// every code command shares. Without a code to use, says how to give it later.
private func withCode(
    _ given: String?, later: String, send: () async throws -> String, use: (String) async throws -> Void
) async throws {
    var code = given
    if code == nil {
        let destination = try await send()
        print("A code went to \(destination); it works for \(VerificationRules.codeLifetimeMs / 60_000) minutes.")
        print("Code: ", terminator: "")
        code = readLine()?.trimmingCharacters(in: .whitespaces)
    }
    guard let code, !code.isEmpty else {
        print("Nothing entered; run `\(later) --code CODE` with the code.")
        return
    }
    try await use(code)
}

struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify your account's email or phone with a code sent to it.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "email or phone.") var what: AddressKind
    @Option(help: "The code that came (else one is sent, then asked for).") var code: String?

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let purpose: VerificationPurpose = what == .email ? .verifyEmail : .verifyPhone
            try await withCode(code, later: "parley verify \(what.rawValue)") {
                try await client.profile.requestCode(purpose).destination
            } use: { code in
                let account = try await client.profile.confirmCode(code, for: purpose)
                print("Verified: \((what == .email ? account.email : account.phone) ?? "").")
            }
        }
    }
}

struct ChangeAddress: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change", abstract: "Replace your email or phone, once a code sent to the new one comes back.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "email or phone.") var what: AddressKind
    @Argument(help: "The new email, or phone in E.164 form (+4915112345678).") var address: String
    @Option(help: "The code sent to the new address (else one is sent, then asked for).") var code: String?

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let purpose: VerificationPurpose = what == .email ? .changeEmail : .changePhone
            try await withCode(code, later: "parley change \(what.rawValue) \(address)") {
                try await client.profile.requestCode(purpose, to: address).destination
            } use: { code in
                let account = try await client.profile.confirmCode(code, for: purpose)
                print(
                    "Your \(what.rawValue) is now \((what == .email ? account.email : account.phone) ?? "") (verified)."
                )
            }
        }
    }
}

struct ResetPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password",
        abstract: "Set a new password with a code sent to your email or phone; every device is signed out.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Your username, email or phone.") var login: String
    @Option(help: "The code that came (else one is sent, then asked for).") var code: String?
    @Option(help: "The new password (else asked twice).") var new: String?

    func run() async throws {
        try await userFacing(options) {
            let client = try options.client(store: ClientStore(path: nil))
            try await withCode(code, later: "parley reset-password \(login)") {
                _ = try await client.session.requestPasswordReset(login: login)
                return "the email (or phone) of \(login), if it names an account with one"
            } use: { code in
                try await client.session.resetPassword(login: login, code: code, newPassword: try readNewPassword(new))
                print("Password set; every device is signed out. Log in with `parley login \(login)`.")
            }
        }
    }
}
