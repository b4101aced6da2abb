import ParleyCore

/// What travels between server nodes.
public enum FanOutItem: Sendable {
    /// A committed change (messages, events, receipts, revocations).
    case stored(StoreChange)
    /// An ephemeral signal, never stored.
    case signal(Signal)
}

/// The seam between server nodes, separate from the store: every node hears every
/// committed change and every signal, in order, and hands them to its subscribers (the
/// ``ConnectionHub`` of the node). With one node it is in-process (``LocalFanOut``); with
/// PostgreSQL it is LISTEN/NOTIFY (`PostgresFanOut`).
public protocol FanOut: Sendable {
    /// Adds a subscriber for everything this node hears from now on, in order. Subscribers
    /// must return quickly and must not call back into the store synchronously.
    func subscribe(_ subscriber: @escaping @Sendable (FanOutItem) -> Void)

    /// Sends an ephemeral signal to every node, this one included. It never touches a table;
    /// throws `invalid_field` for a payload larger than ``Signal/maxPayloadBytes`` or a type
    /// that is not a signal's (``Signal/validate()``).
    func send(_ signal: Signal) async throws

    /// Returns once this node hears every change committed from now on; throws when it
    /// cannot (its listener failed to start). A socket is answered `ready` only after this.
    func ready() async throws
}

extension Signal {
    /// Checks a signal before it is sent: a type is 1 to 32 of a-z, 0-9, '.' and '_', and
    /// never the type of a frame that is not a signal (a signal must not pass for a message,
    /// an event or an answer); the payload is at most ``maxPayloadBytes`` encoded.
    public func validate() throws {
        guard (1...32).contains(type.utf8.count),
            type.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "_"
            }),
            ServerFrameType(rawValue: type)?.isSignal ?? true
        else {
            throw ParleyError(.invalidField, "'\(type)' cannot be a signal's frame type.")
        }
        guard try JSONText.encode(payload).utf8.count <= Self.maxPayloadBytes else {
            throw ParleyError(.invalidField, "A signal's payload may be at most \(Self.maxPayloadBytes) bytes encoded.")
        }
    }
}
