import NIOCore
import NIOPosix
import _NIOFileSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of part of a local file, one chunk read per `next()` on NIO's thread pool for
/// blocking I/O: the reading keeps pace with the consumer and never blocks the caller's threads.
/// The file stays open until the last copy of the sequence and of its iterators is gone, so a
/// consumer that stops early (a client that hangs up) leaks nothing.
struct LocalFileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// The bytes read at once: big enough for few thread hops, small enough to hold many.
    private static let chunkSize = 64 * 1024

    private let file: OpenFile
    private let range: Range<Int64>

    /// The bytes of `range` (the whole file when nil) of the regular file at `path`, or nil when
    /// there is no regular file there. A range that runs past the end of the file is cut there.
    static func open(path: String, range: Range<Int64>? = nil) async throws -> LocalFileChunks? {
        guard let file = try await OpenFile.open(path) else { return nil }
        let wholeFile = 0..<file.size
        return LocalFileChunks(file: file, range: (range ?? wholeFile).clamped(to: wholeFile))
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(file: file, offset: range.lowerBound, end: range.upperBound)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let file: OpenFile
        fileprivate var offset: Int64
        fileprivate let end: Int64

        mutating func next() async throws -> ByteBuffer? {
            guard offset < end else { return nil }
            let count = Int(Swift.min(Int64(LocalFileChunks.chunkSize), end - offset))
            let chunk = try await file.read(at: offset, count: count)
            offset += Int64(chunk.readableBytes)
            return chunk
        }
    }
}

/// A file open for reading, closed when the last reference to it goes.
private final class OpenFile: Sendable {
    let descriptor: FileDescriptor
    let size: Int64

    private init(descriptor: FileDescriptor, size: Int64) {
        self.descriptor = descriptor
        self.size = size
    }

    deinit {
        try? descriptor.close()
    }

    /// The regular file at `path`, or nil when there is none.
    static func open(_ path: String) async throws -> OpenFile? {
        try await NIOThreadPool.singleton.runIfActive {
            let descriptor: FileDescriptor
            do {
                descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec)
            } catch let error as Errno where error == .noSuchFileOrDirectory || error == .notDirectory {
                return nil
            }
            var status = stat()
            guard fstat(descriptor.rawValue, &status) == 0 else {
                let error = Errno(rawValue: errno)
                try? descriptor.close()
                throw error
            }
            guard status.st_mode & S_IFMT == S_IFREG else {
                try? descriptor.close()
                return nil
            }
            return OpenFile(descriptor: descriptor, size: Int64(status.st_size))
        }
    }

    /// Up to `count` bytes from `offset`; throws if the file ends before `offset`.
    func read(at offset: Int64, count: Int) async throws -> ByteBuffer {
        try await NIOThreadPool.singleton.runIfActive {
            var buffer = ByteBufferAllocator().buffer(capacity: count)
            let bytesRead = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { destination in
                try self.descriptor.read(
                    fromAbsoluteOffset: offset, into: UnsafeMutableRawBufferPointer(rebasing: destination.prefix(count))
                )
            }
            guard bytesRead > 0 else {
                throw IOError(errnoCode: EIO, reason: "the file ended at byte \(offset), before the bytes expected")
            }
            return buffer
        }
    }
}
