import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley send-file <to> <path>`: uploads a file (or finds it on the server by hash) with a
/// progress bar, then sends it as an image, voice, video or file message.
struct SendFile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-file",
        abstract:
            "Send a file: PNG and GIF images go as images (their size read from the file), anything else as a file unless --kind says otherwise. An interrupted upload resumes when run again."
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
            let head = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 512)) ?? nil
            let sniffed = ContentSniffer.mimeType(of: Array(head ?? Data()))
            let dimensions = ImageDimensions(head ?? Data())
            let kind = try kind.map(Self.kind) ?? (dimensions == nil ? .file : .image)
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let bar = ProgressBar(label: URL(fileURLWithPath: path).lastPathComponent)
            let file = try await client.files.upload(
                fileAt: path, kind: kind, mimeType: sniffed ?? "application/octet-stream",
                progress: { bar.show($0) })
            bar.finish()
            let content = try content(of: kind, file: file, dimensions: dimensions)
            let handle = try await client.sendQueue.send(kind, content, to: summary.id)
            await client.sendQueue.flush()
            switch await handle.state {
            case .sent(let seq): print("Sent \(kind.rawValue) to \(await title(summary, client: client)) (#\(seq)).")
            case .failed(let reason, _): throw CLIError("Not sent: \(reason)")
            default: print("Queued: the server is unreachable; it will be sent the next time parley connects.")
            }
        }
    }

    private static func kind(_ text: String) throws -> MessageKind {
        let kind = MessageKind(rawValue: text)
        guard FileRules.kinds.contains(kind) else { throw CLIError("--kind must be image, voice, video or file.") }
        return kind
    }

    private func content(of kind: MessageKind, file: FileInfo, dimensions: ImageDimensions?) throws -> JSONValue {
        let name = URL(fileURLWithPath: path).lastPathComponent
        switch kind {
        case .image:
            guard let width = width ?? dimensions?.width, let height = height ?? dimensions?.height else {
                throw CLIError("An image needs --width and --height (read by themselves from PNG and GIF files).")
            }
            return [
                "fileId": .string(file.fileId), "width": .number(.integer(Int64(width))),
                "height": .number(.integer(Int64(height))),
            ]
        case .voice:
            guard let durationMs else { throw CLIError("A voice message needs --duration-ms.") }
            return ["fileId": .string(file.fileId), "durationMs": .number(.integer(Int64(durationMs)))]
        case .video:
            guard let durationMs else { throw CLIError("A video needs --duration-ms.") }
            var content: [String: JSONValue] = [
                "fileId": .string(file.fileId), "durationMs": .number(.integer(Int64(durationMs))),
                "size": .number(.integer(file.size)),
            ]
            if let width { content["width"] = .number(.integer(Int64(width))) }
            if let height { content["height"] = .number(.integer(Int64(height))) }
            return .object(content)
        default:
            return ["fileId": .string(file.fileId), "name": .string(name), "size": .number(.integer(file.size))]
        }
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

/// The pixel size written in a PNG's header or a GIF's screen descriptor.
struct ImageDimensions: Equatable {
    let width: Int
    let height: Int

    init?(_ head: Data) {
        let bytes = Array(head)
        func big(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func little(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        if ContentSniffer.mimeType(of: bytes) == "image/png", bytes.count >= 24 {
            (width, height) = (big(16), big(20))
        } else if ContentSniffer.mimeType(of: bytes) == "image/gif", bytes.count >= 10 {
            (width, height) = (little(6), little(8))
        } else {
            return nil
        }
        guard width > 0, height > 0 else { return nil }
    }
}
