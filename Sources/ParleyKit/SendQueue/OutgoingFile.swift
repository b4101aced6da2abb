import Foundation
import ParleyCore

/// A local file a queued message carries. The send queue uploads it (or finds it on the
/// server by hash) before it sends the message, then writes the file's id into the
/// content's `field`. It is stored with the message, so an upload the app was stopped in
/// goes on from the server's chunks when the app starts again.
public struct OutgoingFile: Sendable, Hashable, Codable {
    /// Where the file is on this device (an absolute path); it must stay there until the
    /// message is sent.
    public var path: String
    /// The content field the file's id fills: `fileId`, `thumbnailId` or `posterId`.
    public var field: String
    /// The kind whose limits the upload is checked against (a thumbnail is an image).
    public var kind: MessageKind
    /// The type read from the file's first bytes, `application/octet-stream` when unknown
    /// (the server sniffs it again and trusts only its own reading).
    public var mimeType: String
    /// The name the server keeps with the upload.
    public var name: String

    /// A file to upload for `field` of a message's content, checked for `kind`.
    public init(path: String, field: String = "fileId", kind: MessageKind) throws {
        // Absolute: the queue may upload it from another working directory, in another process.
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 512)) ?? Data()
        self.path = path
        self.field = field
        self.kind = kind
        self.mimeType = ContentSniffer.mimeType(of: Array(head)) ?? "application/octet-stream"
        self.name = URL(fileURLWithPath: path).lastPathComponent
    }

    /// The file's size in bytes now.
    var size: Int64 {
        get throws {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }
    }
}
