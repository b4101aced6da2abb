import ParleyServer
import Synchronization

/// A ``CodeSender`` for tests: keeps every code it is given, by address, and fails while told to.
public final class CodeInbox: CodeSender {
    private let state = Mutex<(messages: [CodeMessage], failing: Bool)>(([], false))

    public init() {}

    public func send(_ message: CodeMessage) async throws {
        try state.withLock { state in
            if state.failing { throw CodeDeliveryError("The test inbox refuses codes right now.") }
            state.messages.append(message)
        }
    }

    /// Every message delivered, oldest first.
    public var messages: [CodeMessage] { state.withLock { $0.messages } }

    /// The latest code sent to `address`.
    public func code(to address: String) -> String? {
        state.withLock { $0.messages.last { $0.to == address }?.code }
    }

    /// While true, every send fails as an unreachable mail server would.
    public func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }
}
