/// The size limits of the protocol, shared by the server (which enforces them) and clients
/// (which can check before sending).
public enum Limits {
    /// Largest JSON request body accepted over HTTP, in bytes.
    public static let maxRequestBodyBytes = 64 * 1024
    /// Largest WebSocket text frame the server processes; larger ones get an error frame.
    public static let maxFrameBytes = 64 * 1024
    /// Frames above this size are refused by the WebSocket layer, which closes with 1009.
    public static let maxTransportFrameBytes = 256 * 1024
    /// Longest text message, in characters.
    public static let maxTextLength = 8_000
    /// Largest encoded message content, in bytes (any kind).
    public static let maxContentBytes = 16 * 1024
    /// Longest client message id.
    public static let maxClientMessageIDLength = 64
    /// Default and largest number of messages in one history page.
    public static let defaultPageSize = 50
    public static let maxPageSize = 200
    /// Default and largest number of conversations or events in one sync page.
    public static let defaultSyncPageSize = 100
    public static let maxSyncPageSize = 500
    /// Largest number of members a group may have.
    public static let maxGroupMembers = 2_000
    /// Longest group name.
    public static let maxGroupNameLength = 64
}
