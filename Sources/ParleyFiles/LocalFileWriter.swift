import NIOCore
import _NIOFileSystem

/// Writes a new local file from buffers in order through NIO's file system, whose own
/// threads do the blocking writes: a large file does not hold a cooperative thread.
public enum LocalFileWriter {
    /// Creates (or replaces) the file at `path`; `body` appends to it through the function
    /// it is given. The bytes are flushed to the file before this returns.
    public static func write(
        to path: String, _ body: (_ append: (ByteBuffer) async throws -> Void) async throws -> Void
    ) async throws {
        try await FileSystem.shared.withFileHandle(
            forWritingAt: FilePath(path), options: .newFile(replaceExisting: true)
        ) { handle in
            var writer = handle.bufferedWriter()
            try await body { buffer in _ = try await writer.write(contentsOf: buffer) }
            try await writer.flush()
        }
    }
}
