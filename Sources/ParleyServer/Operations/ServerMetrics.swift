import Prometheus

/// What an operator watches (`GET /metrics`, Prometheus text format): the same figures the
/// benchmark tool reports. One registry per application, so several servers in one process
/// (the tests) do not share counters.
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let connections: Gauge
    let messagesCommitted: Counter
    let deliveries: Counter
    let queueOverflows: Counter
    /// Sockets aborted because their peer stopped reading (a write stuck past the timeout).
    let stuckWriteAborts: Counter
    /// Time the store took to commit a message (validation excluded).
    let commitLatency: DurationHistogram
    /// Time from any frame (push, answer, error) being queued on a socket to its write pass.
    let deliveryLatency: DurationHistogram
    /// Pushes handed to a push service that took them; those that failed (the token gone
    /// included); those dropped unsent because the queue was full.
    let pushesDelivered: Counter
    let pushesFailed: Counter
    let pushesDropped: Counter

    init() {
        let buckets: [Duration] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1),
        ]
        let registry = self.registry
        func counter(_ name: String, _ help: String) -> Counter {
            registry.makeCounter(
                descriptor: .init(namespace: "parley", metricName: name, unitName: "total", helpText: help))
        }
        func histogram(_ name: String, _ help: String) -> DurationHistogram {
            registry.makeDurationHistogram(
                descriptor: .init(namespace: "parley", metricName: name, unitName: "seconds", helpText: help),
                buckets: buckets)
        }
        connections = registry.makeGauge(
            descriptor: .init(
                namespace: "parley", metricName: "connections", unitName: "", helpText: "Open WebSocket connections."))
        messagesCommitted = counter("messages_committed", "Messages committed (retries excluded).")
        deliveries = counter("deliveries", "Message frames queued on sockets.")
        queueOverflows = counter("queue_overflows", "Sockets closed with 4003 because they fell behind.")
        stuckWriteAborts = counter("stuck_write_aborts", "Sockets aborted because their peer stopped reading.")
        commitLatency = histogram("commit", "Time to commit a message.")
        deliveryLatency = histogram("delivery", "Time from queueing a frame on a socket to handing it to the socket in a write pass.")
        pushesDelivered = counter("pushes_delivered", "Pushes a push service accepted.")
        pushesFailed = counter("pushes_failed", "Pushes that failed, their token gone included.")
        pushesDropped = counter("pushes_dropped", "Pushes dropped unsent because the push queue was full.")
    }

    /// The exposition text.
    public var text: String { registry.emitToString() }
}
