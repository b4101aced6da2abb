import Foundation
import Synchronization

/// An authenticated WebSocket on a ``RawTCPSocket`` whose frames are written by a thread of
/// its own, every `interval`, until ``stop()``. The in-process server and the test share
/// the cooperative pool, which a loaded machine can starve for seconds; a pinger on that
/// pool would then fall silent and be closed by the heartbeat for the machine's fault.
/// This one keeps its rhythm whatever the pool does.
final class RawWebSocketPinger: Sendable {
    let socket: RawTCPSocket
    private let running = Atomic<Bool>(true)

    /// Upgrades a connection with `token` and starts writing `frame()` every `interval`.
    init(port: Int, token: String, interval: Duration, frame: @escaping @Sendable (Int) -> [UInt8]) throws {
        socket = try RawTCPSocket(port: port)
        socket.sendWebSocketUpgrade(token: token)
        let thread = Thread { [self] in
            var index = 0
            while self.running.load(ordering: .relaxed) {
                index += 1
                self.socket.sendBytes(frame(index))
                Thread.sleep(
                    forTimeInterval: Double(interval.components.attoseconds) / 1e18
                        + Double(interval.components.seconds))
            }
        }
        thread.start()
    }

    func stop() { running.store(false, ordering: .relaxed) }

    /// A client frame (RFC 6455 §5.2) with a payload under 126 bytes: final and masked, as a
    /// client must send it, unless told otherwise; `firstByteBits` sets more bits of the first
    /// byte (a reserved one, say).
    static func frame(
        fin: Bool = true, opcode: UInt8, payload: [UInt8], masked: Bool = true, firstByteBits: UInt8 = 0
    ) -> [UInt8] {
        precondition(payload.count < 126)
        let first = (fin ? 0x80 : 0) | firstByteBits | opcode
        guard masked else { return [first, UInt8(payload.count)] + payload }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        return [first, 0x80 | UInt8(payload.count)] + mask
            + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// A control ping frame.
    static func controlPing(_ index: Int) -> [UInt8] { frame(opcode: 0x9, payload: []) }

    /// Parley's `ping` request as a text frame.
    static func parleyPing(_ index: Int) -> [UInt8] {
        frame(opcode: 0x1, payload: Array(#"{"type":"ping","id":"p\#(index)"}"#.utf8))
    }
}
