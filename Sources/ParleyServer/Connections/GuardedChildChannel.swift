import HummingbirdCore
import Logging
import NIOCore

/// Wraps the HTTP (and WebSocket upgrade) child channel so that every connection is counted
/// against its IP address's limit and starts with a ``ConnectionGuard``.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    struct LimitReached: Error {}

    let base: Base
    let limiter: ConnectionLimiter
    let idleTimeout: TimeAmount
    let requestTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        guard limiter.acquire(address) else {
            logger.notice("Connection refused: too many from one address", metadata: ["ip": "\(address)"])
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(LimitReached())
        }
        let limiter = self.limiter
        channel.closeFuture.whenComplete { _ in limiter.release(address) }
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuard(idleTimeout: idleTimeout, requestTimeout: requestTimeout))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
