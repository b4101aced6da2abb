import Foundation
import ParleyTesting

/// One person at a terminal: the built `parley` binary run as a separate process, with a
/// home directory of its own (its sessions and local store) and pointed at one server.
///
/// Output goes to files rather than pipes, and waiting polls with `Task.sleep`, so no thread
/// of the test process blocks while the command talks to the in-process server.
struct CLIUser: Sendable {
    let server: String
    let home: String

    init(server: String) {
        self.server = server
        home = temporaryPath("parley-cli")
    }

    /// What one finished command printed and how it exited.
    struct Outcome: Sendable, CustomStringConvertible {
        let status: Int32
        let output: String
        let errors: String
        var description: String { "exit \(status); stdout: \(output); stderr: \(errors)" }
    }

    /// Runs `parley <arguments> --server … --home …` to its end. The limit is a hang guard (see
    /// ``CLISession/waitForOutput(_:timeout:)``): a command that sent a 5 MiB file once took
    /// over 60 s, 26 s of it in the catch-up every command begins with.
    func run(_ arguments: [String], timeout: Duration = .seconds(180)) async throws -> Outcome {
        let session = try start(arguments)
        session.endInput()
        do {
            let status = try await session.waitForExit(timeout: timeout)
            return Outcome(status: status, output: session.output, errors: session.errors)
        } catch {
            session.terminate()
            throw error
        }
    }

    /// Runs a command that must succeed and answers what it printed.
    @discardableResult
    func succeed(_ arguments: [String]) async throws -> String {
        let outcome = try await run(arguments)
        guard outcome.status == 0 else { throw CLIFailure("parley \(arguments.joined(separator: " ")): \(outcome)") }
        return outcome.output
    }

    /// Starts a long-running command (such as `chat`) whose standard input the test types into.
    ///
    /// A request may wait 45 s for its answer unless the arguments say otherwise: on CI's two
    /// cores, with every suite's servers running at once, a command's request once went
    /// unanswered for the default 15 s.
    func start(_ arguments: [String]) throws -> CLISession {
        let patience = arguments.contains("--timeout") ? [] : ["--timeout", "45"]
        return try CLISession(
            executable: Self.binary, arguments: arguments + ["--server", server, "--home", home] + patience,
            directory: URL(fileURLWithPath: home))
    }

    /// The `parley` executable SwiftPM built beside this test bundle.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("parley")
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
