import NIOCore

/// The bytes of a stored object as a stream of buffers, read as they are consumed: a slow
/// consumer holds back the disk or the network, and a large object is never whole in memory.
///
/// It is a Hummingbird response body as it is: `ResponseBody(asyncSequence: stream)`.
public struct BlobStream: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer

    private let makeNext: @Sendable () -> () async throws -> ByteBuffer?

    /// A stream of the buffers of `buffers`, taken one at a time as the stream is iterated.
    public init<Buffers: AsyncSequence & Sendable>(_ buffers: Buffers) where Buffers.Element == ByteBuffer {
        self.makeNext = {
            var iterator = buffers.makeAsyncIterator()
            return { try await iterator.next() }
        }
    }

    /// A stream of the one buffer `bytes`, or of no buffer when `bytes` is empty.
    public init(_ bytes: ByteBuffer) {
        self.makeNext = {
            var remaining = bytes.readableBytes > 0 ? bytes : nil
            return {
                defer { remaining = nil }
                return remaining
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(nextBuffer: makeNext())
    }

    /// All the bytes in one buffer. Throws `NIOTooManyBytesError` when there are more than
    /// `maxBytes`.
    public func collect(upTo maxBytes: Int) async throws -> ByteBuffer {
        var collected = ByteBuffer()
        try await collect(upTo: maxBytes, into: &collected)
        return collected
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let nextBuffer: () async throws -> ByteBuffer?

        public mutating func next() async throws -> ByteBuffer? {
            try await nextBuffer()
        }
    }
}
