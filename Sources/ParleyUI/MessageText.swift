import ParleyCore
import ParleyKit

/// The lines a message row shows besides its content, in English: the recall notice, the
/// quote of a reply, and the "Forwarded" and "edited" marks. Apps with their own wording read
/// ``ChatItem/recalledBy``, ``ChatItem/quote``, ``ChatItem/isForwarded`` and
/// ``ChatItem/editedAt`` themselves.
public enum MessageText {
    /// "You recalled a message" when the viewer did, else "alice recalled a message"; nil for
    /// an item that is not recalled.
    public static func recalled(_ item: ChatItem, viewer: UserID, name: (UserID) -> String) -> String? {
        guard let by = item.recalledBy else { return nil }
        return by == viewer ? "You recalled a message" : "\(name(by)) recalled a message"
    }

    /// The line above a reply: who wrote what it quotes and the start of it ("recalled
    /// message" once recalled; the kind for what has no text); nil for an item quoting nothing.
    public static func quote(_ item: ChatItem, name: (UserID) -> String) -> String? {
        guard let quote = item.quote else { return nil }
        let shown: String
        switch quote.kind {
        case .recalled: shown = "recalled message"
        case .deleted: shown = "deleted message"
        default: shown = quote.text ?? "[\(quote.kind.rawValue)]"
        }
        return "\(name(quote.senderId)): \(shown)"
    }

    /// The marks beside the content: "Forwarded" for a forwarded copy, "edited" once edited.
    public static func marks(_ item: ChatItem) -> [String] {
        (item.isForwarded ? ["Forwarded"] : []) + (item.editedAt != nil ? ["edited"] : [])
    }
}
