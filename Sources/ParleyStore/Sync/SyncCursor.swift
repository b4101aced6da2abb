import Foundation
import ParleyCore

/// A position in a user's changes: the last event seen in their event stream, and the
/// storage's change version up to which conversation state has been reported.
///
/// Clients see it only as an opaque string (``encoded``); its meaning belongs to the store.
/// Reporting a conversation twice is harmless (its state is idempotent), skipping one is not,
/// so a backend whose versions can commit out of order must hand out a conservative version.
public struct SyncCursor: Sendable, Hashable {
    public var eventSeq: Int64
    public var version: Int64

    public init(eventSeq: Int64, version: Int64) {
        self.eventSeq = eventSeq
        self.version = version
    }

    /// The opaque wire form, e.g. `c1.12.3456`.
    public var encoded: String { "c1.\(eventSeq).\(version)" }

    /// Parses the wire form; throws `invalid_cursor` for anything else.
    public init(encoded: String) throws {
        let parts = encoded.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "c1", let eventSeq = Int64(parts[1]), let version = Int64(parts[2]),
            eventSeq >= 0, version >= 0
        else {
            throw ParleyError(.invalidCursor, "The sync cursor is not one this server issued; sync without a cursor.")
        }
        self.init(eventSeq: eventSeq, version: version)
    }
}
