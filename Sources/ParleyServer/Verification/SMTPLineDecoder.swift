import NIOCore

/// Splits what a mail server sends into lines, without their CRLF (a bare LF ends a line too).
///
/// It also guards STARTTLS: from the server's reply to `STARTTLS` to the client's next command,
/// sent once TLS is up, the server must send nothing. Bytes there were sent in clear, perhaps by
/// someone in the middle, and would otherwise be read as replies over TLS, so they are an error.
struct SMTPLineDecoder: WriteObservingByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer

    /// RFC 5321 allows 512 bytes; servers write longer lines, but not this long.
    static let maximumLineLength = 8192

    enum Failure: Error, CustomStringConvertible {
        case lineTooLong
        case dataAfterReplyToSTARTTLS

        var description: String {
            switch self {
            case .lineTooLong: "the server sent a line longer than \(SMTPLineDecoder.maximumLineLength) bytes"
            case .dataAfterReplyToSTARTTLS: "the server sent more after its reply to STARTTLS, before TLS started"
            }
        }
    }

    private enum STARTTLSState {
        case notAsked
        case asked
        case answered
    }

    private var startTLS = STARTTLSState.notAsked

    mutating func write(data: ByteBuffer) {
        startTLS = data.readableBytesView.elementsEqual("STARTTLS\r\n".utf8) ? .asked : .notAsked
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard startTLS != .answered || buffer.readableBytes == 0 else { throw Failure.dataAfterReplyToSTARTTLS }
        guard let end = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            guard buffer.readableBytes <= Self.maximumLineLength else { throw Failure.lineTooLong }
            return .needMoreData
        }
        let length = end - buffer.readerIndex
        guard length <= Self.maximumLineLength, var line = buffer.readSlice(length: length) else {
            throw Failure.lineTooLong
        }
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        let endsReply = line.readableBytes <= 3 || line.readableBytesView.dropFirst(3).first == UInt8(ascii: " ")
        if startTLS == .asked, endsReply {
            startTLS = .answered
            guard buffer.readableBytes == 0 else { throw Failure.dataAfterReplyToSTARTTLS }
        }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        try decode(context: context, buffer: &buffer)
    }
}
