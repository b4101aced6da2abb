import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley send-file <to> <path>`: queues a media message whose file the send queue uploads
/// (or finds on the server by hash) with a progress bar before it sends the message.
struct SendFile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-file",
        abstract:
            "Send a file: PNG and GIF images go as images (their size read from the file), anything else as a file unless --kind says otherwise. An interrupted upload resumes the next time parley connects."
    )
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    @Argument(help: "The file to send.") var path: String
    @Option(help: "image, voice, video or file. Default: image for PNG and GIF, else file.") var kind: String?
    @Option(help: "An image's or video's width in pixels (read from PNG and GIF files).") var width: Int?
    @Option(help: "An image's or video's height in pixels (read from PNG and GIF files).") var height: Int?
    @Option(help: "A voice message's or video's length in milliseconds.") var durationMs: Int?

    func run() async throws {
        try await userFacing(options) {
            guard FileManager.default.isReadableFile(atPath: path) else { throw CLIError("Cannot read '\(path)'.") }
            let media = try media()
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let handle = try await client.sendQueue.send(media, to: summary.id)
            let bar = ProgressBar(label: URL(fileURLWithPath: path).lastPathComponent)
            let watcher = Task {
                for await case .uploading(let progress) in await handle.stateUpdates() { bar.show(progress) }
            }
            await client.sendQueue.flush()
            watcher.cancel()
            await watcher.value
            bar.finish()
            switch await handle.state {
            case .sent(let seq):
                print("Sent \(media.kind.rawValue) to \(await title(summary, client: client)) (#\(seq)).")
            case .failed(let reason, _): throw CLIError("Not sent: \(reason)")
            default:
                print("Queued: the server is unreachable; it will be uploaded and sent the next time parley connects.")
            }
        }
    }

    private func media() throws -> OutgoingMedia {
        let kind = try kind.map(Self.kind) ?? (ImageDimensions(fileAt: path) == nil ? .file : .image)
        switch kind {
        case .image:
            guard (width != nil && height != nil) || ImageDimensions(fileAt: path) != nil else {
                throw CLIError("An image needs --width and --height (read by themselves from PNG and GIF files).")
            }
            return try .image(at: path, width: width, height: height)
        case .voice:
            guard let durationMs else { throw CLIError("A voice message needs --duration-ms.") }
            return try .voice(at: path, durationMs: durationMs)
        case .video:
            guard let durationMs else { throw CLIError("A video needs --duration-ms.") }
            return try .video(at: path, durationMs: durationMs, width: width, height: height)
        default:
            return try .file(at: path)
        }
    }

    private static func kind(_ text: String) throws -> MessageKind {
        let kind = MessageKind(rawValue: text)
        guard FileRules.kinds.contains(kind) else { throw CLIError("--kind must be image, voice, video or file.") }
        return kind
    }
}

/// `parley download <conversation> <seq> [path]`: saves the file a message shows.
struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save the file of an image, voice, video or file message, with a progress bar; resumes if run again.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    @Argument(help: "The message's number (as 'parley history' shows it: [12:04 #5]).") var seq: Int64
    @Argument(help: "Where to save it. Default: the file's name (or its id) in the current directory.")
    var path: String?

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let message = try await messageNumbered(seq, in: summary, client: client)
            guard let reference = message.typedContent.fileReferences.first else {
                throw CLIError("Message #\(seq) shows no file.")
            }
            var name = reference.fileId
            if case .file(_, let fileName, _) = message.typedContent { name = fileName }
            let target = path ?? FileManager.default.currentDirectoryPath + "/" + name
            let info = try await client.files.info(of: reference.fileId)
            let bar = ProgressBar(label: name)
            try await client.files.download(info, to: target, progress: { bar.show($0) })
            bar.finish()
            print("Saved \(info.size) bytes to \(target).")
        }
    }
}

/// A one-line progress bar on standard error, redrawn in place.
final class ProgressBar: Sendable {
    let label: String
    init(label: String) { self.label = label }

    func show(_ progress: TransferProgress) {
        let width = 30
        let filled = Int(progress.fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let line = String(
            format: "\r%@ [%@] %3d%% %.1f/%.1f MiB", label, bar, Int(progress.fraction * 100),
            Double(progress.done) / 1_048_576, Double(progress.total) / 1_048_576)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() { FileHandle.standardError.write(Data("\n".utf8)) }
}
