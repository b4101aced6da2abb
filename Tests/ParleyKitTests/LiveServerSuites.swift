import Testing

/// The suites that run real servers with many clients (SDK integration, chaos, several
/// nodes). They run one after another: on two cores, running them side by side makes each
/// other's timeouts, not bugs.
@Suite(.serialized) enum LiveServerSuites {}
