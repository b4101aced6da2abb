import Foundation
import Subprocess
import Synchronization
import SystemPackage

/// A running `parley` process: its standard input is a pipe the test writes lines into; its
/// standard output and error are files read as they grow.
///
/// It is spawned through swift-subprocess, not Foundation's `Process`: on Linux, `Process`
/// lists `/proc/self/fd` with a read past the end of its directory buffer once the test
/// process holds about 1,350 descriptors (every parallel test's server and database), which
/// crashed the whole test run with signal 11.
final class CLISession: Sendable {
    private let outputFile: URL
    private let errorFile: URL
    private let shared: Shared

    /// What the task that runs the process and the test share.
    private final class Shared: Sendable {
        let state: Mutex<State>
        init(_ state: State) { self.state = Mutex(state) }
    }

    private struct State {
        /// The write end of standard input's pipe, until it is closed.
        var input: FileDescriptor?
        var processID: pid_t?
        var status: Int32?
        var failure: String?
        var terminateOnStart = false
    }

    init(executable: URL, arguments: [String], directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw CLIFailure("no parley binary at \(executable.path); SwiftPM builds it with the tests")
        }
        let name = UUID().uuidString
        outputFile = directory.appendingPathComponent("\(name).out")
        errorFile = directory.appendingPathComponent("\(name).err")
        let output = try FileDescriptor.open(
            FilePath(outputFile.path), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let errors = try FileDescriptor.open(
            FilePath(errorFile.path), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let pipe = try FileDescriptor.pipe()
        let shared = Shared(State(input: pipe.writeEnd))
        self.shared = shared
        Task {
            do {
                let result = try await Subprocess.run(
                    .path(FilePath(executable.path)), arguments: Arguments(arguments),
                    input: .fileDescriptor(pipe.readEnd, closeAfterSpawningProcess: true),
                    output: .fileDescriptor(output, closeAfterSpawningProcess: true),
                    error: .fileDescriptor(errors, closeAfterSpawningProcess: true)
                ) { execution in
                    let pid = execution.processIdentifier.value
                    let terminate = shared.state.withLock { state in
                        state.processID = pid
                        return state.terminateOnStart
                    }
                    if terminate { kill(pid, SIGTERM) }
                }
                shared.state.withLock {
                    switch result.terminationStatus {
                    case .exited(let code): $0.status = code
                    case .signaled(let signal): $0.status = 128 + signal
                    }
                }
            } catch {
                shared.state.withLock {
                    $0.failure = "could not run \(executable.path): \(error)"
                    $0.status = -1
                }
            }
        }
    }

    deinit {
        endInput()
    }

    var isRunning: Bool { shared.state.withLock { $0.status == nil } }
    var status: Int32 { shared.state.withLock { $0.status ?? -1 } }
    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    var errors: String {
        let text = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        guard let failure = shared.state.withLock({ $0.failure }) else { return text }
        return text + failure
    }

    /// Types a line, as a person would, followed by Enter (lost if the process has ended).
    func type(_ line: String) {
        shared.state.withLock { _ = try? $0.input?.writeAll(Array((line + "\n").utf8)) }
    }

    /// Closes standard input, as Ctrl-D would.
    func endInput() {
        shared.state.withLock {
            try? $0.input?.close()
            $0.input = nil
        }
    }

    /// Waits until standard output contains `text` (it must appear while the process runs).
    ///
    /// The limit is a hang guard. `parley chat` prints nothing before its catch-up and the
    /// opening of its conversation are done. A traced run of the PostgreSQL suite, with every
    /// suite's servers and Chromium busy at once, took 24 s over those four requests: they took
    /// 8, 12.5, 2 and 1.3 s to be answered. A 30 s limit failed there.
    func waitForOutput(_ text: String, timeout: Duration = .seconds(120)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !output.contains(text) {
            guard ContinuousClock.now < deadline else {
                throw CLIFailure("'\(text)' never appeared; output so far:\n\(output)\nerrors:\n\(errors)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits for the process to exit and answers its status (128 + the signal if one ended it).
    ///
    /// `timeout` counts from the spawn, and a process that has exited counts as ended even
    /// before the task that reaps it runs: on a loaded machine the cooperative pool, which
    /// spawns and reaps, can stall for tens of seconds, and that is not the process hanging.
    func waitForExit(timeout: Duration = .seconds(180)) async throws -> Int32 {
        let clock = ContinuousClock()
        let spawnBound = clock.now + .seconds(300)
        var deadline: ContinuousClock.Instant?
        while isRunning {
            if let pid = shared.state.withLock({ $0.processID }) {
                let end = deadline ?? clock.now + timeout
                deadline = end
                guard clock.now < end || !Self.runs(pid) else {
                    throw CLIFailure("the process did not exit; output:\n\(output)\nerrors:\n\(errors)")
                }
            } else if clock.now > spawnBound {
                throw CLIFailure("the process was never spawned")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return status
    }

    /// Whether process `pid` still runs: false once it has exited, reaped or not (a zombie).
    private static func runs(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let state = stat.split(separator: ")").last?.split(separator: " ").first
        else { return false }
        return state != "Z"
    }

    /// Stops the process if it still runs.
    func terminate() {
        let pid = shared.state.withLock { state -> pid_t? in
            guard state.status == nil else { return nil }
            if state.processID == nil { state.terminateOnStart = true }
            return state.processID
        }
        if let pid { kill(pid, SIGTERM) }
    }
}
