import Foundation
import ParleyCore

/// An image, voice, video or file message made from files on this device, for
/// ``SendQueue/send(_:to:)``: its kind, the content it will have once its files are
/// uploaded, and those files.
public struct OutgoingMedia: Sendable, Hashable {
    public var kind: MessageKind
    /// The content without the ids of the files still to upload.
    public var content: [String: JSONValue]
    public var files: [OutgoingFile]

    /// An image; `width` and `height` are read from a PNG or GIF when not given. A
    /// `thumbnail` (a smaller image file made by the app) is shown before the image loads.
    public static func image(at path: String, width: Int? = nil, height: Int? = nil, thumbnail: String? = nil)
        throws -> OutgoingMedia
    {
        let image = try OutgoingFile(path: path, kind: .image)
        let read = ImageDimensions(fileAt: path)
        guard let width = width ?? read?.width, let height = height ?? read?.height else {
            throw ParleyError(
                .invalidField, "An image needs its width and height (read by themselves from PNG and GIF).")
        }
        let files =
            try [image] + (thumbnail.map { [try OutgoingFile(path: $0, field: "thumbnailId", kind: .image)] } ?? [])
        return OutgoingMedia(
            kind: .image, content: ["width": .integer(width), "height": .integer(height)], files: files)
    }

    /// A voice message lasting `durationMs`.
    public static func voice(at path: String, durationMs: Int) throws -> OutgoingMedia {
        OutgoingMedia(
            kind: .voice, content: ["durationMs": .integer(durationMs)],
            files: [try OutgoingFile(path: path, kind: .voice)])
    }

    /// A video lasting `durationMs`, with its dimensions when known and a `poster` image
    /// shown before it plays.
    public static func video(
        at path: String, durationMs: Int, width: Int? = nil, height: Int? = nil, poster: String? = nil
    ) throws -> OutgoingMedia {
        let video = try OutgoingFile(path: path, kind: .video)
        var content: [String: JSONValue] = ["durationMs": .integer(durationMs), "size": .integer(Int(try video.size))]
        if let width { content["width"] = .integer(width) }
        if let height { content["height"] = .integer(height) }
        let files = try [video] + (poster.map { [try OutgoingFile(path: $0, field: "posterId", kind: .image)] } ?? [])
        return OutgoingMedia(kind: .video, content: content, files: files)
    }

    /// Any file, shown with its `name` (the file's own name when not given) and size.
    public static func file(at path: String, name: String? = nil) throws -> OutgoingMedia {
        let file = try OutgoingFile(path: path, kind: .file)
        return OutgoingMedia(
            kind: .file, content: ["name": .string(name ?? file.name), "size": .integer(Int(try file.size))],
            files: [file])
    }
}

extension JSONValue {
    fileprivate static func integer(_ value: Int) -> JSONValue { .number(.integer(Int64(value))) }
}
