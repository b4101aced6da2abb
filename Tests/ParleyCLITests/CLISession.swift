import Foundation
import Synchronization

/// A running `parley` process: its standard input is a pipe the test writes lines into; its
/// standard output and error are files read as they grow.
final class CLISession: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let outputFile: URL
    private let errorFile: URL

    init(executable: URL, arguments: [String], directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let name = UUID().uuidString
        outputFile = directory.appendingPathComponent("\(name).out")
        errorFile = directory.appendingPathComponent("\(name).err")
        for file in [outputFile, errorFile] where !FileManager.default.createFile(atPath: file.path, contents: nil) {
            throw CLIFailure("cannot create \(file.path)")
        }
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw CLIFailure("no parley binary at \(executable.path); SwiftPM builds it with the tests")
        }
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
    }

    var isRunning: Bool { process.isRunning }
    var status: Int32 { process.terminationStatus }
    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    /// Types a line, as a person would, followed by Enter (lost if the process has ended).
    func type(_ line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes standard input, as Ctrl-D would.
    func endInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Waits until standard output contains `text` (it must appear while the process runs).
    func waitForOutput(_ text: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !output.contains(text) {
            guard ContinuousClock.now < deadline else {
                throw CLIFailure("'\(text)' never appeared; output so far:\n\(output)\nerrors:\n\(errors)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits for the process to exit and answers its status.
    func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                throw CLIFailure("the process did not exit; output:\n\(output)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }

    /// Stops the process if it still runs.
    func terminate() {
        if process.isRunning { process.terminate() }
    }
}
