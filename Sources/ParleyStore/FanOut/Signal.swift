import ParleyCore

/// An ephemeral message between devices (typing, presence; call signalling later): it
/// travels on the ``FanOut`` to every node, reaches the recipients' connected devices as a
/// frame of type ``type`` with ``payload``, and is never stored. Whoever is offline misses it.
public struct Signal: Codable, Sendable, Hashable {
    /// The frame type the recipients' devices get.
    public var type: String
    public var recipients: [UserID]
    public var payload: JSONValue

    /// The largest payload, encoded. With PostgreSQL a signal travels as NOTIFYs of at most
    /// 8,000 bytes, each carrying the payload and up to ``recipientsPerNote`` recipients.
    public static let maxPayloadBytes = 1_500
    /// How many recipients one NOTIFY carries; a signal to more is sent as several.
    public static let recipientsPerNote = 250

    public init(type: String, recipients: [UserID], payload: JSONValue) {
        self.type = type
        self.recipients = recipients
        self.payload = payload
    }
}
