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
    /// Time from any frame (push, answer, error) being queued on a socket to its being written.
    let deliveryLatency: DurationHistogram

    init() {
        let buckets: [Duration] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1),
        ]
        connections = registry.makeGauge(
            descriptor: .init(
                namespace: "parley", metricName: "connections", unitName: "", helpText: "Open WebSocket connections."))
        messagesCommitted = registry.makeCounter(
            descriptor: .init(
                namespace: "parley", metricName: "messages_committed", unitName: "total",
                helpText: "Messages committed (retries excluded)."))
        deliveries = registry.makeCounter(
            descriptor: .init(
                namespace: "parley", metricName: "deliveries", unitName: "total",
                helpText: "Message frames queued on sockets."))
        queueOverflows = registry.makeCounter(
            descriptor: .init(
                namespace: "parley", metricName: "queue_overflows", unitName: "total",
                helpText: "Sockets closed with 4003 because they fell behind."))
        stuckWriteAborts = registry.makeCounter(
            descriptor: .init(
                namespace: "parley", metricName: "stuck_write_aborts", unitName: "total",
                helpText: "Sockets aborted because their peer stopped reading."))
        commitLatency = registry.makeDurationHistogram(
            descriptor: .init(
                namespace: "parley", metricName: "commit", unitName: "seconds", helpText: "Time to commit a message."),
            buckets: buckets)
        deliveryLatency = registry.makeDurationHistogram(
            descriptor: .init(
                namespace: "parley", metricName: "delivery", unitName: "seconds",
                helpText: "Time from queueing a frame on a socket to writing it."),
            buckets: buckets)
    }

    /// The exposition text.
    public var text: String { registry.emitToString() }
}
