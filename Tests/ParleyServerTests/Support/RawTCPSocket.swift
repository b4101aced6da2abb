import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to the server under test, for clients that misbehave below HTTP:
/// one that sends nothing, dribbles bytes, or never reads.
final class RawTCPSocket: @unchecked Sendable {
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks the kernel's receive buffer
    /// (before connecting, so the advertised window is small too).
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // deinit closes the descriptor, also when this throws.
        guard result == 0 else { throw TestFailure("connect() failed: errno \(errno)") }
    }

    deinit { close(descriptor) }

    /// Writes all of `text`; false when the peer closed.
    @discardableResult
    func send(_ text: String) -> Bool { sendBytes(Array(text.utf8)) }

    /// Writes all of `bytes`; false when the peer closed.
    @discardableResult
    func sendBytes(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) == buffer.count
        }
    }

    /// Ends this side of the connection (a FIN), as a killed app's system does, without a
    /// WebSocket close frame; the socket can still read.
    func finishSending() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Asks for a WebSocket on `/v1/ws`, authenticated in the request by `token` when one is
    /// given (the server then answers 101 and sends `ready` on the socket).
    func sendWebSocketUpgrade(token: String?) {
        send(
            "GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "\r\n")
    }

    /// Reads until the end of an HTTP response head and answers its status line; nil when the
    /// connection ended or `timeout` passed first. What follows the head in the same read is
    /// dropped.
    func readResponseStatus(within timeout: Duration) async -> String? {
        await read(until: "\r\n\r\n", within: timeout)?.components(separatedBy: "\r\n").first
    }

    /// Reads until what came contains `marker`, and answers all of it as text; nil when the
    /// connection ended or `timeout` passed first.
    func read(until marker: String, within timeout: Duration) async -> String? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var received: [UInt8] = []
        while clock.now < deadline {
            guard let bytes = await read(timeout: .milliseconds(100)) else { return nil }
            received += bytes
            let text = String(decoding: received, as: UTF8.self)
            if text.contains(marker) { return text }
        }
        return nil
    }

    /// Reads what is available within `timeout`, up to `limit` bytes; nil at end of stream
    /// or on a reset, empty when nothing came. Waits on a thread of its own, so that the
    /// in-process server's tasks keep the cooperative pool.
    func read(timeout: Duration, limit: Int = 65_536) async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.blockingRead(timeout: timeout, limit: limit))
            }
        }
    }

    private func blockingRead(timeout: Duration, limit: Int) -> [UInt8]? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, milliseconds) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = recv(descriptor, &buffer, limit, 0)
        return count > 0 ? Array(buffer.prefix(count)) : nil
    }

    /// Whether the server closes the connection within `timeout`; reads and discards what
    /// arrives meanwhile.
    func closedByPeer(within timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if await read(timeout: .milliseconds(100)) == nil { return true }
        }
        return false
    }
}
