/// The size limits of the protocol, shared by the server (which enforces them) and clients
/// (which can check before sending).
public enum Limits {
    /// Largest JSON request body accepted over HTTP, in bytes: room for the longest text
    /// even when a client escapes every character (`\\uD83D\\uDE00` is 12 bytes).
    public static let maxRequestBodyBytes = 128 * 1024
    /// Largest WebSocket text frame the server processes; larger ones get an error frame.
    public static let maxFrameBytes = 128 * 1024
    /// Frames above this size are refused by the WebSocket layer, which closes with 1009.
    public static let maxTransportFrameBytes = 256 * 1024
    /// Longest text message, in characters (Unicode code points, see ``TextRules``).
    public static let maxTextLength = 8_000
    /// Largest message content as the server stores it (UTF-8 JSON), in bytes, any kind:
    /// the longest text (at most 4 bytes a character) with room for the other fields.
    public static let maxContentBytes = 48 * 1024
    /// Longest client message id.
    public static let maxClientMessageIDLength = 64
    /// Default and largest number of messages in one history page.
    public static let defaultPageSize = 50
    public static let maxPageSize = 200
    /// Default and largest number of conversations or events in one sync page.
    public static let defaultSyncPageSize = 100
    public static let maxSyncPageSize = 500
    /// Default and largest number of results in one page of a search.
    public static let defaultSearchPageSize = 20
    public static let maxSearchPageSize = 100
    /// The default member limit of a new group (a server may be configured with another; each
    /// group's own is in its ``GroupProfile/memberLimit``).
    public static let maxGroupMembers = 2_000
    /// Longest group name, in characters.
    public static let maxGroupNameLength = 64
    /// Longest group description, in characters.
    public static let maxGroupDescriptionLength = 512
    /// Longest group announcement, in characters.
    public static let maxAnnouncementLength = 2_000
    /// Longest group nickname, in characters.
    public static let maxGroupNicknameLength = 32
    /// Longest file id (an avatar), in bytes of printable ASCII.
    public static let maxFileIDLength = 128
    /// A mute that lasts until lifted: 9999-12-31T23:59:59.999Z, in ms since the epoch.
    public static let mutedUntilLifted: Int64 = 253_402_300_799_999
    /// Links of one group that still work (not revoked, expired or used up) at once.
    public static let maxActiveInviteLinks = 50
    /// Longest lifetime of an invite link, in seconds (one year).
    public static let maxInviteLinkLifetimeSeconds: Int64 = 366 * 24 * 3600
    /// Most uses of one invite link.
    public static let maxInviteLinkUses = 100_000
    /// Longest note with a join request, in characters.
    public static let maxJoinRequestMessageLength = 200
    /// How often a client repeats `typing` while the user keeps typing, in ms.
    public static let typingRefreshMs: Int64 = 3_000
    /// The least time between two starts the server forwards per sender and conversation,
    /// in ms: below the refresh, so that a refresh that comes a little early still goes out.
    public static let typingMinIntervalMs: Int64 = 2_000
    /// How long a typing notice lasts without a refresh, in ms.
    public static let typingExpiryMs: Int64 = 6_000
    /// How long a sender may recall their own message, by default (`--recall-window`).
    public static let defaultRecallWindowSeconds: Int64 = 120
    /// How long a sender may edit their own text, by default (`--edit-window`).
    public static let defaultEditWindowSeconds: Int64 = 900
    /// The most users one message may mention.
    public static let maxMentions = 100
    /// The most messages one delete-for-me request may name.
    public static let maxDeleteBatch = 100
    /// The characters of a quoted message's text that a quote carries.
    public static let quoteSnippetLength = 100
}
