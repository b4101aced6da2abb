/// What a UI shows about the connection, derived from the richer internal state.
public enum ConnectionStatus: Sendable, Equatable {
    /// Not trying to connect (never started, logged out, or credentials rejected).
    case offline(reason: ConnectionStateMachine.CloseReason?)
    case connecting
    case connected
    /// Retrying after a failure; `attempt` counts since the last success.
    case reconnecting(attempt: Int)
    /// Failed `failureThreshold` times in a row: tell the user the server cannot be reached.
    /// Retries continue.
    case unreachable

    /// The status that goes with a state machine's state.
    public init(_ machine: ConnectionStateMachine) {
        switch machine.state {
        case .disconnected(let reason): self = .offline(reason: reason)
        case .connected: self = .connected
        case .connecting(let attempt), .authenticating(let attempt):
            self =
                machine.consecutiveFailures >= machine.configuration.failureThreshold
                ? .unreachable : attempt == 1 ? .connecting : .reconnecting(attempt: attempt)
        case .waitingToReconnect(let attempt, _, _):
            self =
                machine.consecutiveFailures >= machine.configuration.failureThreshold
                ? .unreachable : .reconnecting(attempt: attempt)
        }
    }
}
